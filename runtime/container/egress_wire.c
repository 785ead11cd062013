/* Egress for one container (see egress/egress.h for the pieces):
 *
 *   the broker  a child of the monitor, on the host side of every namespace
 *               boundary: it alone reads the credential, listens on
 *               STATE/egress.sock (0600, owned by the container user's host
 *               uid) and talks TLS to the one upstream. It ends when the
 *               monitor does (its stop pipe closes; PR_SET_PDEATHSIG too).
 *   the relay   a child of the container's pid 1, confined exactly like the
 *               agent, listening on 127.0.0.1:PORT inside the container's
 *               network namespace. It reaches the broker's socket through an
 *               fd pid 1 opened before it gave up its identity, never by a
 *               path the agent can see; it is not dumpable, so the agent
 *               cannot borrow that fd through /proc.
 * The monitor's side is here; the relay is started by init.c. */
#include "runtime/container/egress_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "common/fsutil.h"
#include "egress/egress.h"
#include "egress/ossl.h"
#include "egress/log_limit.h"
#include "runtime/confine/cgroup.h"
#include "runtime/container/activity.h"
#include "runtime/confine/helper_confine.h"
#include "runtime/confine/landlock.h"
#include "common/proc.h"

/* How long the monitor waits for a stopping broker's last records. */
#define BROKER_STOP_MS 3000

/* The log in the state directory, bounded (egress/log_limit.h): the agent
 * decides how many requests it sends, not how much the state root holds. */
struct broker_log {
    int fd;
    struct eg_log_limit limit;
    struct eg_act_sender activity; /* the monitor's activity record */
};

/* One line per request: method, path, status (and the broker's note), with
 * the agent's bytes escaped. Never a header or a body. */
static void log_request(void *arg, const struct egress_log_entry *e)
{
    struct broker_log *log = arg;
    char method[64], path[1024], line[1400], note[200];
    struct timespec now;
    size_t len;
    int n;

    egress_activity_send(&log->activity, e);
    rr_escape(e->method.p, e->method.n, method, sizeof(method));
    rr_escape(e->path.p, e->path.n, path, sizeof(path));
    n = snprintf(line, sizeof(line), "%s %s %d%s%s\n", method, path, e->status,
                 e->note ? " " : "", e->note ? e->note : "");
    if (n <= 0)
        return;
    len = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    bool pass = eg_log_limit_admit(&log->limit,
                                   (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec,
                                   len, note, sizeof(note));
    if (note[0] != '\0')
        rr_write_all(log->fd, note, strlen(note));
    if (pass)
        rr_write_all(log->fd, line, len);
}

/* What the broker still reads once it serves: the system trust store
 * (hashed certificate directories are read at each handshake), the
 * resolver's files and NSS modules (each connection resolves the upstream),
 * and where the operator's OpenSSL variables point (SSL_CERT_DIR as one
 * directory; a list of them is not followed). Nothing is writable. */
static int broker_landlock(struct rr_error *err)
{
    static const char *const fixed[] = {"/etc",   "/usr",         "/lib",     "/lib64",
                                        "/lib32", "/dev/urandom", "/dev/null"};
    const char *paths[RR_ARRAY_SIZE(fixed) + 2];
    size_t n = 0;

    for (size_t i = 0; i < RR_ARRAY_SIZE(fixed); i++)
        paths[n++] = fixed[i];
    if (getenv("SSL_CERT_FILE") != NULL)
        paths[n++] = getenv("SSL_CERT_FILE");
    if (getenv("SSL_CERT_DIR") != NULL && strchr(getenv("SSL_CERT_DIR"), ':') == NULL)
        paths[n++] = getenv("SSL_CERT_DIR");
    return landlock_read_only(paths, n, err) < 0 ? -1 : 0;
}

/* Once the credential is in memory and the socket bound, the broker needs
 * no privilege: it parses the agent's HTTP as the container user's host
 * identity (as root; rootless, the caller's own uid), with no capability,
 * no_new_privs, Landlock read-only and revrun's seccomp floor. */
static int broker_confine(const struct profile *p, const struct sock_fprog *floor,
                          int monitor_pidfd, struct rr_error *err)
{
    struct pollfd pfd = {.fd = monitor_pidfd, .events = POLLIN};

    if (helper_drop_identity(p->rootless ? 0 : p->host_uid, p->rootless ? 0 : p->host_gid, err) < 0)
        return rr_wrap(err, "egress broker: identity");
    /* A uid change resets the dumpable flag (to fs.suid_dumpable) and the
     * parent-death signal: both are set again. */
    if (egress_harden_process(err) < 0)
        return rr_wrap(err, "egress broker");
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
        return rr_fail(err, errno, "egress broker: parent-death signal");
    if (poll(&pfd, 1, 0) != 0)
        return rr_fail(err, ESRCH, "egress broker: the monitor is gone");
    if (broker_landlock(err) < 0)
        return rr_wrap(err, "egress broker");
    if (helper_load_seccomp(floor, err) < 0)
        return rr_wrap(err, "egress broker");
    return 0;
}

/* Tell the monitor the broker serves (one byte), or why it could not. */
static void broker_report(int ready_fd, const struct rr_error *err)
{
    char text[RR_ERROR_MSG_MAX + 64];

    if (err == NULL) {
        rr_write_all(ready_fd, "R", 1);
    } else {
        rr_error_text(err, text, sizeof(text));
        rr_write_all(ready_fd, text, strlen(text));
    }
    close(ready_fd);
}

__attribute__((noreturn)) static void broker_child(const struct profile *p,
                                                   const struct sock_fprog *floor,
                                                   const struct cgroup_plan *cg, int listen_fd,
                                                   int stop_fd, int log_fd, int monitor_pidfd,
                                                   int ready_fd, int activity_fd)
{
    struct broker_log log = {.fd = log_fd, .activity = {.fd = activity_fd}};
    char note[200];
    const struct rr_egress *eg = p->egress;
    struct egress_broker_opts o;
    struct egress_secret secret = {0};
    struct egress_broker *b = NULL;
    struct rr_error err;
    const int keep[] = {listen_fd, stop_fd, log_fd, monitor_pidfd, ready_fd, activity_fd};
    int rc = 1;

    rr_close_all_except(keep, sizeof(keep) / sizeof(keep[0]));
    eg_log_limit_init(&log.limit, EG_LOG_MAX_BYTES, EG_LOG_BURST, EG_LOG_PER_SEC);
    /* Forked before the monitor lets go of the caller's stdio. */
    if (helper_stdio(log_fd, &err) < 0) {
        rr_wrap(&err, "egress broker");
        goto out;
    }
    /* Before it allocates anything: the broker's memory (its TLS, its
     * connection threads, the log's pages on the state tmpfs) and CPU are
     * the container's, under the container's limits. */
    if (cg != NULL && cgroup_join(cg, getpid(), &err) < 0) {
        rr_wrap(&err, "egress broker");
        goto out;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    prctl(PR_SET_NAME, "revrun-broker", 0, 0, 0);
    egress_broker_opts_from_config(eg, &o);
    o.ca_file = eg->ca_file;
    o.log = log_request;
    o.log_arg = &log;
    /* The credential is read here and nowhere else: never by the monitor
     * that forks the container, never by anything inside it. */
    if (egress_harden_process(&err) < 0 ||
        egress_secret_load(eg->credential_file, eg->credential_env, &secret, &err) < 0)
        goto out;
    o.secret = secret.p;
    o.secret_len = secret.n;
    if (egress_broker_new(&o, &b, &err) < 0)
        goto out;
    egress_secret_wipe(&secret);
    if (broker_confine(p, floor, monitor_pidfd, &err) < 0)
        goto out;
    close(monitor_pidfd);
    broker_report(ready_fd, NULL);
    ready_fd = -1;
    rc = egress_broker_serve(b, listen_fd, stop_fd, &err) < 0 ? 1 : 0;
out:
    if (ready_fd >= 0)
        broker_report(ready_fd, &err);
    egress_activity_close(&log.activity);
    eg_log_limit_summary(&log.limit, note, sizeof(note));
    rr_write_all(log_fd, note, strlen(note));
    if (rc != 0) {
        char text[RR_ERROR_MSG_MAX + 64];
        rr_error_text(&err, text, sizeof(text));
        rr_write_all(log_fd, "broker stopped: ", 16);
        rr_write_all(log_fd, text, strlen(text));
        rr_write_all(log_fd, "\n", 1);
    }
    egress_secret_wipe(&secret);
    egress_broker_free(b);
    _exit(rc);
}

/* Fail closed: the container is not made unless its broker serves, confined
 * (an agent configured for egress must never meet a broker that is not). */
static int wait_ready(int fd, struct rr_error *err)
{
    char msg[RR_ERROR_MSG_MAX];
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    ssize_t n = 0;
    int r;

    while ((r = poll(&pfd, 1, 30000)) < 0 && errno == EINTR)
        ;
    if (r == 1)
        while ((n = read(fd, msg, sizeof(msg) - 1)) < 0 && errno == EINTR)
            ;
    close(fd);
    if (r == 0)
        return rr_fail(err, ETIMEDOUT, "egress broker: not ready after 30 s");
    if (r < 0 || n < 0)
        return rr_fail(err, errno, "egress broker: waiting for it");
    if (n == 1 && msg[0] == 'R')
        return 0;
    msg[n] = '\0';
    return rr_fail(err, 0, "egress broker could not start: %s",
                   n > 0 ? msg : "it exited without saying why");
}

static void close_reset(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* The pipes and the record's channel; the child's ends in child[]. */
static int wire_fds(const struct profile *p, int ready[2], int stop[2], int act[2],
                    struct rr_error *err)
{
    ready[0] = ready[1] = stop[0] = stop[1] = act[0] = act[1] = -1;
    if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(stop, O_CLOEXEC) < 0 ||
        (p->record_execs && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, act) < 0)) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            close_reset(&ready[i]);
            close_reset(&stop[i]);
            close_reset(&act[i]);
        }
        return rr_fail(err, e, "egress broker: pipe");
    }
    return 0;
}

int egress_wire_broker(const struct profile *p, const struct sock_fprog *floor,
                       const struct cgroup_plan *cg, const char *state_path,
                       struct broker_wire *bw, struct rr_error *err)
{
    char sock[512], log[512];
    _cleanup_close_ int listen_fd = -1;
    _cleanup_close_ int log_fd = -1;
    _cleanup_close_ int self = -1;
    int stop[2], ready[2], act[2];

    *bw = (struct broker_wire){.pid = -1, .stop = -1, .activity = -1};
    if (p->egress == NULL)
        return 0;
    snprintf(sock, sizeof(sock), "%s/%s", state_path, EGRESS_SOCKET);
    snprintf(log, sizeof(log), "%s/%s", state_path, EGRESS_LOG);
    listen_fd = egress_listen_unix(sock, err);
    if (listen_fd < 0)
        return rr_wrap(err, "egress broker");
    /* Only the container's user may connect (as root, the socket is given
     * to its host uid; unprivileged, it already is that uid). */
    if (!p->rootless && chown(sock, p->host_uid, p->host_gid) < 0)
        return rr_fail(err, errno, "egress broker: chown %s", sock);
    log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (log_fd < 0)
        return rr_fail(err, errno, "egress broker: %s", log);
    self = rr_pidfd_open(getpid());
    if (self < 0)
        return rr_fail(err, errno, "egress broker: pidfd_open");
    if (wire_fds(p, ready, stop, act, err) < 0)
        return -1;
    bw->pid = fork();
    if (bw->pid < 0) {
        int e = errno;
        for (int i = 0; i < 2; i++) {
            close(stop[i]);
            close(ready[i]);
            close_reset(&act[i]);
        }
        return rr_fail(err, e, "egress broker: fork");
    }
    if (bw->pid == 0) {
        close(stop[1]);
        close(ready[0]);
        close_reset(&act[0]);
        broker_child(p, floor, cg, listen_fd, stop[0], log_fd, self, ready[1], act[1]);
    }
    close(stop[0]);
    close(ready[1]);
    close_reset(&act[1]);
    /* The broker stops when this end closes: when the monitor ends. */
    bw->stop = stop[1];
    bw->activity = act[0];
    return wait_ready(ready[0], err);
}

void egress_wire_stop(struct broker_wire *bw, struct activity *rec)
{
    _cleanup_close_ int pidfd = bw->pid > 0 ? rr_pidfd_open(bw->pid) : -1;
    struct pollfd pfd[2] = {{.fd = pidfd, .events = POLLIN},
                            {.fd = bw->activity, .events = POLLIN}};
    struct timespec t0, now;

    close_reset(&bw->stop);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Its connections end soon after the stop (they watch it in every
     * wait); what they report on the way out is taken meanwhile. */
    while (pidfd >= 0) {
        int left;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left = BROKER_STOP_MS - (int)((now.tv_sec - t0.tv_sec) * 1000 +
                                      (now.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0 || poll(pfd, 2, left) < 0 || (pfd[0].revents & POLLIN))
            break;
        if (pfd[1].revents != 0)
            egress_wire_take_activity(&bw->activity, rec);
        pfd[1].fd = bw->activity;
    }
    egress_wire_take_activity(&bw->activity, rec);
    close_reset(&bw->activity);
    if (pidfd >= 0 && (pfd[0].revents & POLLIN) && waitpid(bw->pid, NULL, WNOHANG) == bw->pid)
        bw->pid = -1;
}

int egress_wire_open_socket(const char *state_path, struct rr_error *err)
{
    char sock[512];
    int fd;

    snprintf(sock, sizeof(sock), "%s/%s", state_path, EGRESS_SOCKET);
    fd = open(sock, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "egress: open the broker's socket");
    return fd;
}

/* The relay connects through the fd pid 1 kept: /proc/self/fd/N names the
 * socket without any path the agent could see or swap. */
static int connect_kept(void *arg, struct rr_error *err)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/self/fd/%d", *(int *)arg);
    return egress_connect_unix(path, err);
}

int egress_wire_relay(int listen_fd, int sock_fd, struct rr_error *err)
{
    static int kept;
    struct egress_relay_opts o = {0};

    kept = sock_fd;
    prctl(PR_SET_NAME, "revrun-relay", 0, 0, 0);
    return egress_relay_serve(listen_fd, -1, connect_kept, &kept, &o, err);
}

int egress_wire_load_tls(const struct rr_config *cfg, struct rr_error *err)
{
    const struct rr_egress *eg = &cfg->revrun.egress;

    if (eg->mode != RR_EGRESS_BROKER || eg->upstream == NULL ||
        strncmp(eg->upstream, "https://", 8) != 0)
        return 0;
    return eg_ossl_load(err);
}
