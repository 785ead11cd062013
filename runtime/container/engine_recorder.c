#include "runtime/container/engine_recorder.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cmdline.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/container/activity_keep.h"
#include "runtime/container/recorder_execs.h"
#include "runtime/container/notify.h"
#include "runtime/container/sync.h"

void engine_recorder_init(struct engine_recorder *r)
{
    r->init_end = r->rec_end = -1;
}

int engine_recorder_prepare(struct engine_recorder *r, struct rr_error *err)
{
    int sp[2];

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        return rr_fail(err, errno, "activity record: socketpair");
    r->init_end = sp[0];
    r->rec_end = sp[1];
    return 0;
}

void engine_recorder_close(struct engine_recorder *r)
{
    if (r->init_end >= 0)
        close(r->init_end);
    if (r->rec_end >= 0)
        close(r->rec_end);
    engine_recorder_init(r);
}

/* The listener hangs up once every process under the filter has exited;
 * their exits are the kernel's once they are reaped (pid 1 by the engine's
 * subreaper, at once as a rule): waited for this long, then the record
 * ends without the ones still missing. */
#define REAP_WAIT_MS 5000
#define REAP_STEP_MS 20

static void wait_exits(struct notify *n)
{
    for (int waited = 0; n->have_execs && n->execs.n_watch > 0 && waited < REAP_WAIT_MS;
         waited += REAP_STEP_MS) {
        act_execs_on_exits(&n->execs);
        if (n->execs.n_watch > 0)
            (void)poll(NULL, 0, REAP_STEP_MS);
    }
}

/* Until the listener comes: the init's end. Then the listener, and the
 * pidfds of recorded processes for their exits. Ends when there is nothing
 * left to record, or on TERM, INT or HUP (sig_fd: a host shutting down):
 * the record is then finished and kept, and with the listener closed the
 * container's next exec fails. Whether the container ever started. */
static bool record(struct notify *n, int sock, int sig_fd, struct recorder_execs *ex)
{
    bool had_listener = false;

    for (;;) {
        struct pollfd pfd[4 + 1 + 2 * RECORDER_EXECS_MAX] = {
            {.fd = sock, .events = POLLIN},
            {.fd = n->fd, .events = POLLIN},
            {.fd = n->have_execs ? act_execs_poll_fd(&n->execs) : -1, .events = POLLIN},
            {.fd = sig_fd, .events = POLLIN},
        };
        size_t n_ex = recorder_execs_pollfds(ex, pfd + 4);
        int r = poll(pfd, (nfds_t)(4 + n_ex), notify_timeout_ms(n));

        if (r < 0) {
            if (errno == EINTR)
                continue;
            return had_listener;
        }
        if (pfd[3].revents & POLLIN)
            return had_listener;
        /* the container's exec waits on this: first */
        if (pfd[1].revents & POLLIN)
            notify_handle(n);
        else if (pfd[1].revents & (POLLHUP | POLLERR | POLLNVAL))
            notify_hangup(n); /* every process under the filter is gone */
        recorder_execs_events(ex, pfd + 4, n_ex, n);
        notify_idle(n, r == 0, pfd[2].revents & POLLIN);
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            struct sync_msg m;
            int passed = -1;
            int got = sync_recv_fd(sock, &m, &passed);
            /* the init waits for the answer: taken, or why not */
            if (got > 0 && m.type == SYNC_NOTIFY_FD && passed >= 0) {
                notify_take_fd(n, passed);
                passed = -1;
                had_listener = n->fd >= 0;
                (void)sync_send(sock, SYNC_ACK, 0, 0, NULL);
            } else if (got > 0) {
                struct rr_error why = {0};
                rr_fail(&why, 0, "the recorder could not take the listener (out of file "
                                 "descriptors: a pidfd for each process it watches)");
                (void)sync_send_error(sock, &why);
            }
            if (passed >= 0)
                close(passed);
            /* the init has exec'd or died: its end says nothing more */
            if (got <= 0) {
                close(sock);
                sock = -1;
                if (!had_listener)
                    return false; /* ended (deleted) before start: nothing ran */
            }
        }
        if (had_listener && n->fd < 0) {
            wait_exits(n);
            return true;
        }
    }
}

/* What the recorder is given. */
struct recorder_args {
    int sock, dir_fd, ready;
    pid_t init_pid;
    const char *id;
    const char *keep_root; /* "": the record is not kept past the state directory */
};

static __attribute__((noreturn)) void recorder_main(const struct recorder_args *a)
{
    const int keep[] = {a->sock, a->dir_fd, a->ready};
    int sock = a->sock, dir_fd = a->dir_fd, ready = a->ready, keep_root = -1, keep_fd = -1;
    int sig_fd;
    struct recorder_execs ex;
    sigset_t ends;
    bool started;
    struct rr_error err = {0};
    struct notify n;
    int null;

    rr_close_all_except(keep, sizeof(keep) / sizeof(keep[0]));
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) {
        rr_fail(&err, errno, "activity record: /dev/null as the recorder's stdio");
        sync_send_error(ready, &err);
        _exit(1);
    }
    close(null);
    rr_cmdline_hide("revrun-recorder");
    (void)prctl(PR_SET_NAME, "revrun-recorder", 0, 0, 0);
    /* Out of the caller's session: a terminal's signals to the engine's
     * CLI are not for the record. */
    (void)setsid();
    /* nothing of create's directory (the bundle's) is held */
    if (chdir("/") < 0) {
        rr_fail(&err, errno, "activity record: chdir /");
        sync_send_error(ready, &err);
        _exit(1);
    }
    proc_signals_default();
    sigemptyset(&ends);
    sigaddset(&ends, SIGTERM);
    sigaddset(&ends, SIGINT);
    sigaddset(&ends, SIGHUP);
    sig_fd = sigprocmask(SIG_BLOCK, &ends, NULL) == 0 ? signalfd(-1, &ends, SFD_CLOEXEC) : -1;
    if (sig_fd < 0) {
        rr_fail(&err, errno, "activity record: signalfd");
        sync_send_error(ready, &err);
        _exit(1);
    }
    notify_init(&n);
    umask(077);
    /* each process it watches is a pidfd: as many fds as it may have (the
     * engine's caller's limit stands; recorder_execs keeps one spare) */
    {
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            (void)setrlimit(RLIMIT_NOFILE, &rl);
        }
    }
    if (recorder_execs_listen(&ex, dir_fd, &err) < 0 || notify_record(&n, dir_fd, &err) < 0 || notify_started(&n, a->init_pid, false, &err) < 0 ||
        (a->keep_root[0] != '\0' &&
         ((keep_root = activity_keep_open(a->keep_root, &err)) < 0 ||
          (keep_fd = openat(dir_fd, ACTIVITY_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0))) {
        if (keep_root >= 0 && keep_fd < 0)
            rr_fail(&err, errno, "reopen %s", ACTIVITY_FILE);
        rr_wrap(&err, "activity record");
        sync_send_error(ready, &err);
        _exit(1);
    }
    /* A long-lived container may fill the record on purpose: past the caps
     * its execs are refused, never run unrecorded. */
    n.rec.refuse_when_full = true;
    close(dir_fd);
    if (sync_send(ready, SYNC_READY, 0, 0, NULL) < 0)
        _exit(1);
    close(ready);
    /* started: the container's listener came, or an exec'd process's did
     * (`revrun exec` into a created container runs before any start) */
    started = record(&n, sock, sig_fd, &ex) || ex.taken;
    recorder_execs_close(&ex);
    notify_free(&n); /* the last line */
    /* Nothing ran in a container deleted before its start (or a create
     * that failed late): nothing is kept. Nobody is left to tell of a
     * failure: the record in the state directory stands (until delete). */
    if (started && keep_fd >= 0 && activity_keep(keep_root, a->id, keep_fd, &err) < 0)
        _exit(1);
    _exit(0);
}

int engine_recorder_start(struct engine_recorder *r, int dir_fd, pid_t init_pid, const char *id,
                          const char *keep_root, struct rr_error *err)
{
    struct sync_msg m;
    int ready[2], rc;
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ready) < 0) {
        engine_recorder_close(r);
        return rr_fail(err, errno, "activity record: socketpair");
    }
    pid = fork();
    if (pid == 0) {
        struct recorder_args a = {r->rec_end, dir_fd, ready[1], init_pid, id, keep_root};
        close(ready[0]);
        recorder_main(&a);
    }
    close(ready[1]);
    engine_recorder_close(r);
    if (pid < 0) {
        close(ready[0]);
        return rr_fail(err, errno, "activity record: fork the recorder");
    }
    rc = sync_expect(ready[0], SYNC_READY, &m, err);
    close(ready[0]);
    if (rc < 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    /* It lives on, as the container does: when create exits, the engine's
     * subreaper (the shim, conmon) or init reaps it. */
    return 0;
}
