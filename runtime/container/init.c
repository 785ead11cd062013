#include "runtime/container/init.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/close_range.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/cmdline.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/confine/caps.h"
#include "runtime/container/egress_wire.h"
#include "runtime/container/console.h"
#include "runtime/container/leftover.h"
#include "runtime/container/loopback.h"
#include "runtime/confine/landlock.h"
#include "egress/dns.h"
#include "egress/egress.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"
#include "runtime/container/warm.h"

/* Signals init passes on to the agent. SIGKILL and SIGSTOP cannot be caught;
 * SIGCHLD is init's own. */
static const int forwarded[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGUSR1,
                                SIGUSR2, SIGWINCH, SIGCONT, SIGALRM, SIGPIPE};

static char exe_path[4096];
/* Made by pid 1 in setup, used by the agent's process just before exec. */
static int landlock_fd = -1;
static int relay_listen = -1; /* 127.0.0.1:PORT for the egress relay, or -1 */
static int dns_udp = -1, dns_tcp = -1; /* 127.0.0.1:53 for the NXDOMAIN resolver, or -1 */
static int pty_slave = -1;
/* revrun's own processes in the container (relay, resolver, warmers): not
 * the agent's leftovers when it exits. */
static pid_t helpers[2 + WARM_MAX_WORKERS];
static size_t n_helpers;

/* ---- setup, in the order the kernel sees it ---- */

static int take_identity(const struct init_args *a, struct rr_error *err)
{
    const struct profile *p = a->p;

    if (a->clear_groups && setgroups(0, NULL) < 0)
        return rr_fail(err, errno, "identity: setgroups");
    if (setresgid(p->gid, p->gid, p->gid) < 0)
        return rr_fail(err, errno, "identity: setresgid %u", (unsigned)p->gid);
    /* Keep the namespace's capabilities across the uid change: the mounts
     * below still need them; they are all dropped before anything runs. */
    if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
        return rr_fail(err, errno, "identity: keepcaps");
    if (setresuid(p->uid, p->uid, p->uid) < 0)
        return rr_fail(err, errno, "identity: setresuid %u", (unsigned)p->uid);
    if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || caps_raise_effective(err) < 0)
        return rr_wrap(err, "identity");
    return 0;
}

/* Die with the monitor. Set after the uid change (which clears it), then
 * checked once, since the monitor may have died before it was set. */
static int tie_to_monitor(int sync_fd, struct rr_error *err)
{
    struct pollfd pfd = {.fd = sync_fd, .events = POLLRDHUP};

    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return rr_fail(err, errno, "parent-death signal");
    if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLRDHUP)))
        return rr_fail(err, ESRCH, "the monitor is gone");
    return 0;
}

/* args[0] through the container's PATH (from process.env, never the
 * host's), checked now so that `create` reports a missing program. */
static int resolve_exe(const struct profile *p, struct rr_error *err)
{
    const char *prog = p->args->v[0];
    const char *path = strv_env_get(p->env, "PATH");
    struct stat st;

    if (strchr(prog, '/') != NULL) {
        snprintf(exe_path, sizeof(exe_path), "%s", prog);
        if (stat(exe_path, &st) < 0 || !S_ISREG(st.st_mode))
            return rr_fail(err, errno ? errno : EACCES, "exec %s", prog);
        return 0;
    }
    for (const char *dir = path; dir != NULL && *dir != '\0';) {
        size_t n = strcspn(dir, ":");
        if ((size_t)snprintf(exe_path, sizeof(exe_path), "%.*s/%s", (int)n, dir, prog) <
                sizeof(exe_path) &&
            stat(exe_path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
            return 0;
        dir += n;
        if (*dir == ':')
            dir++;
    }
    return rr_fail(err, ENOENT, "exec %s: not found in the container's PATH", prog);
}

/* A worktree's main git directory: its upper pair too (rootfs_fds). */
static int reopen_git_layers(struct init_args *a, int state, struct rr_error *err)
{
    int *fds[] = {&a->fds.git_upper_fd, &a->fds.git_work_fd};
    const char *names[] = {STORE_DIR "/" STORE_GIT_UPPER, STORE_DIR "/" STORE_GIT_WORK};

    if (a->fds.git_lower_mfd < 0)
        return 0;
    for (size_t i = 0; i < 2; i++) {
        int fd = rr_reopen_same(state, names[i], *fds[i], err);
        if (fd < 0)
            return rr_wrap(err, "the worktree's git directory");
        close(*fds[i]);
        *fds[i] = fd;
    }
    return 0;
}

/* The fds the monitor opened point at mounts of its namespace; overlay
 * layers and mount targets must be this namespace's. Done while still the
 * creating user (the owner of the state directory). */
static int reopen_layers(struct init_args *a, struct rr_error *err)
{
    _cleanup_close_ int state = open(a->state_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int *fds[] = {&a->fds.upper_fd, &a->fds.work_fd, &a->fds.mountpoint};
    const char *names[] = {STORE_DIR "/upper", STORE_DIR "/work", ROOTFS_DIR};

    if (state < 0)
        return rr_fail(err, errno, "open %s", a->state_path);
    if (a->p->egress != NULL && (a->egress_sock = egress_wire_open_socket(a->state_path, err)) < 0)
        return -1;
    if (a->p->home != NULL &&
        (a->fds.home_fd = openat(state, HOME_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "open the HOME store");
    for (size_t i = 0; i < 3; i++) {
        int fd = rr_reopen_same(state, names[i], *fds[i], err);
        if (fd < 0)
            return -1;
        close(*fds[i]);
        *fds[i] = fd;
    }
    return reopen_git_layers(a, state, err);
}

static int setup(struct init_args *a, struct rr_error *err)
{
    const struct profile *p = a->p;
    struct sync_msg m;

    if (sync_expect(a->sync_fd, SYNC_GO, &m, err) < 0)
        return -1;
    if (reopen_layers(a, err) < 0)
        return -1;
    if (take_identity(a, err) < 0 || tie_to_monitor(a->sync_fd, err) < 0)
        return -1;
    /* After the monitor put us in our cgroup: the namespace's root is it. */
    if (unshare(CLONE_NEWCGROUP) < 0)
        return rr_fail(err, errno, "cgroup namespace");
    if (rootfs_enter(p, &a->fds, err) < 0)
        return -1;
    close(a->fds.mountpoint);
    close(a->fds.upper_fd);
    close(a->fds.work_fd);
    rr_closep(&a->fds.git_upper_fd);
    rr_closep(&a->fds.git_work_fd);
    a->fds.git_upper_fd = a->fds.git_work_fd = -1;
    if (a->fds.home_fd >= 0)
        close(a->fds.home_fd);
    if (p->hostname != NULL && sethostname(p->hostname, strlen(p->hostname)) < 0)
        return rr_fail(err, errno, "sethostname");
    if (!p->net_host && loopback_up(err) < 0)
        return -1;
    /* Bound while pid 1 still may (a port below 1024 needs it): the agent
     * finds the relay listening from its first instruction. */
    if (p->egress != NULL &&
        (relay_listen = egress_listen_loopback(p->egress_port, err)) < 0)
        return rr_wrap(err, "egress relay");
    if (p->dns_nxdomain && dns_listen(&dns_udp, &dns_tcp, err) < 0)
        return rr_wrap(err, "the sandbox's resolver");
    if (chdir(p->cwd) < 0)
        return rr_fail(err, errno, "process.cwd %s", p->cwd);
    if (resolve_exe(p, err) < 0)
        return -1;
    if (p->terminal) {
        pty_slave = console_make_pty(a->console_fd, err);
        a->console_fd = -1; /* closed by console_make_pty */
        if (pty_slave < 0)
            return -1;
    }
    if (landlock_prepare(p, &landlock_fd, err) < 0)
        return -1;
    /* From here on this process holds nothing: no capability in any set,
     * no way to gain one, and no dumpable memory or /proc/1/exe for the
     * agent to open. */
    if (caps_drop_all(err) < 0)
        return rr_wrap(err, "drop capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return rr_fail(err, errno, "no_new_privs");
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return rr_fail(err, errno, "non-dumpable");
    return 0;
}

/* ---- start ---- */

static void set_rlimits(const struct profile *p)
{
    for (size_t i = 0; i < p->n_rlimits; i++) {
        struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
        if (setrlimit(p->rlimits[i].resource, &rl) < 0)
            _exit(126);
    }
}

/* The last layers, in this order: Landlock needs its own syscalls, which
 * seccomp leaves alone; seccomp last of all. */
static int seal(const struct init_args *a)
{
    if (landlock_enforce(landlock_fd) < 0)
        return -1;
    return seccomp_progs_load(a->seccomp);
}

/* As seal(), with the floor's listener (if it has one) handed to the
 * monitor, which answers the agent's namespace attempts EPERM and counts
 * them; this process keeps no copy. */
static int seal_agent(const struct init_args *a)
{
    int listener, r;

    if (landlock_enforce(landlock_fd) < 0)
        return -1;
    if (seccomp_progs_load_agent(a->seccomp, &listener) < 0)
        return -1;
    if (listener < 0)
        return 0;
    r = sync_send_fd(a->sync_fd, SYNC_NOTIFY_FD, listener);
    close(listener);
    return r;
}

/* The agent's side of the fork: the last steps, then exec. Failures are
 * reported through errpipe (close-on-exec: silence means exec worked). */
__attribute__((noreturn)) static void exec_agent(const struct init_args *a, int errpipe)
{
    const struct profile *p = a->p;
    int e;

    proc_signals_default();
    /* A new session and no controlling terminal (no TIOCSTI into anyone's
     * terminal), unless the config asked for one: then a fresh pty of the
     * container's own. */
    if (setsid() < 0)
        goto fail;
    if (pty_slave >= 0 && console_attach(pty_slave) < 0)
        goto fail;
    umask(022);
    set_rlimits(p);
    /* Only 0, 1 and 2 cross the exec. */
    if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
        goto fail;
    if (seal_agent(a) < 0)
        goto fail;
    /* This process inherited pid 1's non-dumpable flag; the monitor must
     * read this exec's arguments (the activity record), which needs a
     * dumpable process when it has no capability over our memory's owner
     * (rootless). What is exposed until the exec is a copy of pid 1's
     * memory, no secret, to no process but revrun's own: the agent is not
     * running yet. The exec sets the flag anew. */
    if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
        goto fail;
    execve(exe_path, p->args->v, p->env->v);
fail:
    e = errno;
    if (write(errpipe, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

static pid_t spawn_agent(const struct init_args *a, struct rr_error *err)
{
    int pipefd[2];
    int e = 0;
    pid_t pid;
    ssize_t n;

    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "pipe");
    pid = fork();
    if (pid < 0) {
        close(pipefd[0]);
        close(pipefd[1]);
        return rr_fail(err, errno, "fork the process");
    }
    if (pid == 0) {
        close(pipefd[0]);
        exec_agent(a, pipefd[1]);
    }
    close(pipefd[1]);
    do {
        n = read(pipefd[0], &e, sizeof(e));
    } while (n < 0 && errno == EINTR);
    close(pipefd[0]);
    if (n == (ssize_t)sizeof(e)) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return rr_fail(err, e, "exec %s", a->p->args->v[0]);
    }
    return pid;
}

/* The egress relay: confined like the agent (its own session, the same
 * rlimits, Landlock and seccomp, nothing but its two sockets), then the
 * relay loop instead of an exec. Non-dumpable like pid 1, so the agent, the
 * same uid, cannot take its broker fd through /proc. */
static int spawn_relay(const struct init_args *a, struct rr_error *err)
{
    pid_t pid;

    if (relay_listen < 0)
        return 0;
    pid = fork();
    if (pid < 0)
        return rr_fail(err, errno, "fork the egress relay");
    if (pid == 0) {
        const int keep[] = {relay_listen, a->egress_sock, landlock_fd};
        struct rr_error rerr;
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (setsid() < 0)
            _exit(126);
        set_rlimits(a->p);
        rr_close_all_except(keep, 3);
        if (seal(a) < 0)
            _exit(126);
        _exit(egress_wire_relay(relay_listen, a->egress_sock, &rerr) < 0 ? 1 : 0);
    }
    helpers[n_helpers++] = pid;
    close(relay_listen);
    relay_listen = -1;
    close(a->egress_sock);
    return 0;
}

/* The NXDOMAIN resolver (egress/dns.h): confined like the relay, with
 * nothing but its two sockets. */
static int spawn_dns(const struct init_args *a, struct rr_error *err)
{
    pid_t pid;

    if (dns_udp < 0)
        return 0;
    pid = fork();
    if (pid < 0)
        return rr_fail(err, errno, "fork the resolver");
    if (pid == 0) {
        const int keep[] = {dns_udp, dns_tcp, landlock_fd};
        struct rr_error derr;
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (setsid() < 0)
            _exit(126);
        set_rlimits(a->p);
        rr_close_all_except(keep, 3);
        if (seal(a) < 0)
            _exit(126);
        _exit(dns_serve(dns_udp, dns_tcp, &derr) < 0 ? 1 : 0);
    }
    helpers[n_helpers++] = pid;
    close(dns_udp);
    close(dns_tcp);
    dns_udp = dns_tcp = -1;
    return 0;
}

/* One of the checkout's warmers (warm.h): confined like the relay, idle
 * priority, nothing but the checkout's directory. */
static void __attribute__((noreturn)) run_warm(const struct init_args *a, unsigned worker,
                                               unsigned workers)
{
    const struct sched_param idle = {0};
    sigset_t none;
    int fd;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    prctl(PR_SET_NAME, "revrun-warm", 0, 0, 0);
    if (setsid() < 0 || sched_setscheduler(0, SCHED_IDLE, &idle) < 0)
        _exit(126);
    set_rlimits(a->p);
    fd = open(a->p->checkout_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    {
        const int keep[] = {fd, landlock_fd};
        rr_close_all_except(keep, 2);
    }
    if (fd < 0 || seal(a) < 0)
        _exit(126);
    warm_tree(fd, WARM_MAX_ENTRIES, WARM_MAX_DEPTH, worker, workers);
    _exit(0);
}

/* One warmer per CPU the agent may run on, up to WARM_MAX_WORKERS. Best
 * effort: a warmer that cannot start only leaves the agent's first look at
 * its share slower. pid 1 reaps them with the rest. */
static void spawn_warm(const struct init_args *a)
{
    cpu_set_t cpus;
    unsigned workers = 1;

    if (a->p->lower == NULL || a->p->checkout_path == NULL)
        return;
    if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 && CPU_COUNT(&cpus) > 1)
        workers = (unsigned)CPU_COUNT(&cpus);
    if (workers > WARM_MAX_WORKERS)
        workers = WARM_MAX_WORKERS;
    for (unsigned w = 0; w < workers; w++) {
        pid_t pid = fork();
        if (pid == 0)
            run_warm(a, w, workers);
        if (pid > 0)
            helpers[n_helpers++] = pid;
    }
}

/* ---- pid 1's loop ---- */

static void pid1_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
        sigaddset(set, forwarded[i]);
}

/* From start on, signals are read from a signalfd: blocked since start
 * opened the fifo (sync_wait_for_start), so one sent the moment start
 * returned is pending here, not dropped, and goes to the agent. The
 * handlers go back to SIG_DFL (a pending signal whose default ends a
 * process stays pending). */
static int make_signalfd(sigset_t *set)
{
    pid1_signals(set);
    if (sigprocmask(SIG_BLOCK, set, NULL) < 0 || proc_end_on_signals(false) < 0)
        return -1;
    return signalfd(-1, set, SFD_CLOEXEC);
}

/* Reap everything; return when the agent itself has been reaped. */
static int reap_until_agent(int sfd, pid_t agent)
{
    for (;;) {
        struct signalfd_siginfo si;
        ssize_t n = read(sfd, &si, sizeof(si));
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof(si))
            return -1;
        if (si.ssi_signo != SIGCHLD) {
            kill(agent, (int)si.ssi_signo);
            continue;
        }
        for (;;) {
            int status;
            pid_t w = waitpid(-1, &status, WNOHANG);
            if (w <= 0)
                break;
            if (w == agent)
                return status;
        }
    }
}

/* What the agent left running dies now rather than unseen with the pid
 * namespace; the job is told how many and their names. */
static void report_leftover(const struct init_args *a)
{
    char names[SYNC_TEXT_MAX];
    uint64_t n = leftover_kill(helpers, n_helpers, names, sizeof(names));

    if (n > 0)
        sync_send(a->sync_fd, SYNC_LEFTOVER, (int64_t)n, 0, names);
}

__attribute__((noreturn)) void init_main(struct init_args *a)
{
    struct rr_error err = {0};
    sigset_t set;
    int sfd;
    pid_t agent;
    int status;

    const int keep[] = {a->sync_fd,         a->fifo_fd,      a->fds.mountpoint,
                        a->fds.lower_mfd,   a->fds.upper_fd, a->fds.work_fd,
                        a->console_fd,      a->fds.checkout_mfd, a->fds.out_mfd,
                        a->fds.git_lower_mfd, a->fds.git_upper_fd, a->fds.git_work_fd};

    /* Nothing of the monitor's (or of revrun create's) reaches pid 1, not
     * even its command line in /proc/1/cmdline. */
    rr_close_all_except(keep, sizeof(keep) / sizeof(keep[0]));
    rr_cmdline_hide("revrun-init");
    /* revrun itself runs with umask 077; what it builds for the container
     * (mount points, /etc) must be readable by the agent. */
    umask(022);
    if (setup(a, &err) < 0) {
        sync_send_error(a->sync_fd, &err);
        _exit(1);
    }
    /* until start a signal ends the created container, as runc's; the
     * monitor's mask is inherited: unblocked for the wait (one sent
     * during setup was pending and ends it now) */
    pid1_signals(&set);
    if (proc_end_on_signals(true) < 0 || sigprocmask(SIG_UNBLOCK, &set, NULL) < 0) {
        rr_fail(&err, errno, "pid 1's signals");
        sync_send_error(a->sync_fd, &err);
        _exit(1);
    }
    if (sync_send(a->sync_fd, SYNC_READY, 0, 0, NULL) < 0)
        _exit(1);
    if (sync_wait_for_start(a->fifo_fd, NULL, &set, &err) < 0) {
        sync_send_error(a->sync_fd, &err);
        _exit(1);
    }
    sfd = make_signalfd(&set);
    if (sfd < 0) {
        rr_fail(&err, errno, "signalfd");
        sync_send(a->sync_fd, SYNC_EXITED, 127 << 8, 0, "signalfd failed");
        _exit(1);
    }
    if (spawn_relay(a, &err) < 0 || spawn_dns(a, &err) < 0) {
        char text[SYNC_TEXT_MAX];
        sync_send(a->sync_fd, SYNC_EXITED, 127 << 8, 0, rr_error_text(&err, text, sizeof(text)));
        _exit(0);
    }
    agent = spawn_agent(a, &err);
    if (agent > 0)
        spawn_warm(a);
    if (agent < 0) {
        char text[SYNC_TEXT_MAX];
        /* 127 as a shell reports a program it could not run. */
        sync_send(a->sync_fd, SYNC_EXITED, 127 << 8, 0, rr_error_text(&err, text, sizeof(text)));
        _exit(0);
    }
    /* The agent holds its own; pid 1 keeps nothing it could be reached by. */
    if (pty_slave >= 0)
        close(pty_slave);
    if (landlock_fd >= 0)
        close(landlock_fd);
    sync_send(a->sync_fd, SYNC_STARTED, agent, 0, NULL);
    status = reap_until_agent(sfd, agent);
    report_leftover(a);
    sync_send(a->sync_fd, SYNC_EXITED, status, 0, NULL);
    /* Returning from pid 1 kills whatever the agent left behind. */
    _exit(0);
}
