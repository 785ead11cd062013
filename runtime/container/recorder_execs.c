#include "runtime/container/recorder_execs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "runtime/confine/seccomp.h"
#include "runtime/container/notify.h"
#include "runtime/container/sync.h"

/* The socket's path through the state directory's fd: nothing on the way
 * to it is looked up again by name. */
static int sock_addr(int dir_fd, struct sockaddr_un *a, struct rr_error *err)
{
    *a = (struct sockaddr_un){.sun_family = AF_UNIX};
    if (snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d/%s", dir_fd,
                 RECORDER_SOCK) >= (int)sizeof(a->sun_path))
        return rr_fail(err, ENAMETOOLONG, "%s", RECORDER_SOCK);
    return 0;
}

int recorder_execs_listen(struct recorder_execs *x, int dir_fd, struct rr_error *err)
{
    struct sockaddr_un a;

    for (size_t i = 0; i < RECORDER_EXECS_MAX; i++)
        x->conn[i] = x->lis[i] = -1;
    x->taken = false;
    x->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (x->spare < 0)
        return rr_fail(err, errno, "%s: /dev/null", RECORDER_SOCK);
    x->srv = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (x->srv < 0)
        return rr_fail(err, errno, "%s: socket", RECORDER_SOCK);
    if (sock_addr(dir_fd, &a, err) < 0)
        return -1;
    /* root's, 0600 (the recorder's umask), in the root-only state directory */
    if (bind(x->srv, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(x->srv, 8) < 0)
        return rr_fail(err, errno, "%s: listen", RECORDER_SOCK);
    return 0;
}

size_t recorder_execs_pollfds(const struct recorder_execs *x, struct pollfd *out)
{
    size_t n = 0;

    out[n++] = (struct pollfd){.fd = x->srv, .events = POLLIN};
    for (size_t i = 0; i < RECORDER_EXECS_MAX; i++) {
        out[n++] = (struct pollfd){.fd = x->conn[i], .events = POLLIN};
        out[n++] = (struct pollfd){.fd = x->lis[i], .events = POLLIN};
    }
    return n;
}

static int *free_slot(int *v)
{
    for (size_t i = 0; i < RECORDER_EXECS_MAX; i++)
        if (v[i] < 0)
            return &v[i];
    return NULL;
}

/* A connection's one message: the listener, kept and acknowledged; then
 * it is closed. With no room the listener is closed and the process told
 * why: it fails before its exec, which would otherwise fail (ENOSYS, no
 * listener) and never run unrecorded. */
static void take(struct recorder_execs *x, int *conn)
{
    struct sync_msg m;
    int passed = -1, *slot = NULL;

    if (sync_recv_fd(*conn, &m, &passed) > 0 && m.type == SYNC_NOTIFY_FD && passed >= 0) {
        slot = free_slot(x->lis);
        if (slot != NULL) {
            *slot = passed;
            passed = -1;
            x->taken = true;
            (void)sync_send(*conn, SYNC_ACK, 0, 0, NULL);
        } else {
            struct rr_error full = {0};
            rr_fail(&full, 0,
                    "the container's recorder holds %d exec'd processes' listeners, each "
                    "until every process under it has ended: no room for this one",
                    RECORDER_EXECS_MAX);
            (void)sync_send_error(*conn, &full);
        }
    }
    if (passed >= 0)
        close(passed);
    close(*conn);
    *conn = -1;
}

void recorder_execs_events(struct recorder_execs *x, const struct pollfd *pfd, size_t n,
                           struct notify *nt)
{
    size_t k = 1;

    if (n < 1 + 2 * RECORDER_EXECS_MAX)
        return;
    /* the exec'd processes wait on their listeners: first */
    for (size_t i = 0; i < RECORDER_EXECS_MAX; i++, k += 2) {
        if (pfd[k + 1].revents & POLLIN) {
            notify_handle_on(nt, x->lis[i]);
        } else if (pfd[k + 1].revents & (POLLHUP | POLLERR | POLLNVAL)) {
            close(x->lis[i]); /* every process under it is gone */
            x->lis[i] = -1;
        }
        if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
            take(x, &x->conn[i]);
    }
    if (pfd[0].revents & POLLIN) {
        int c = accept4(x->srv, NULL, NULL, SOCK_CLOEXEC);
        int *slot;
        /* Out of fds (the container's processes hold the recorder's
         * pidfds): the spare makes room to take the connection and close
         * it, so that exec fails at once (its listener has nowhere to go)
         * instead of waiting in the backlog, and this loop does not spin
         * on a socket that stays readable. */
        if (c < 0 && (errno == EMFILE || errno == ENFILE) && x->spare >= 0) {
            close(x->spare);
            c = accept4(x->srv, NULL, NULL, SOCK_CLOEXEC);
            if (c >= 0)
                close(c);
            x->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
            return;
        }
        slot = c >= 0 ? free_slot(x->conn) : NULL;
        if (slot != NULL)
            *slot = c;
        else if (c >= 0)
            close(c);
    }
}

void recorder_execs_close(struct recorder_execs *x)
{
    if (x->srv >= 0)
        close(x->srv);
    if (x->spare >= 0)
        close(x->spare);
    x->srv = x->spare = -1;
    for (size_t i = 0; i < RECORDER_EXECS_MAX; i++) {
        if (x->conn[i] >= 0)
            close(x->conn[i]);
        if (x->lis[i] >= 0)
            close(x->lis[i]);
        x->conn[i] = x->lis[i] = -1;
    }
}

int recorder_load_seccomp(const struct seccomp_progs *s, int record_fd, const char *what,
                          struct rr_error *err)
{
    struct sync_msg m;
    int listener, r;

    if (record_fd < 0)
        return seccomp_progs_load(s) < 0 ? rr_fail(err, errno, "%s", what) : 0;
    if (seccomp_progs_load_agent(s, &listener) < 0)
        return rr_fail(err, errno, "%s", what);
    if (listener < 0)
        return rr_fail(err, EINVAL, "%s: the floor has no listener for the activity record", what);
    r = sync_send_fd(record_fd, SYNC_NOTIFY_FD, listener);
    close(listener);
    if (r < 0)
        return rr_fail(err, errno, "activity record: hand the exec listener to revrun's recorder");
    /* taken, or why not: an exec the recorder would not see fails here,
     * saying so, not in the exec with ENOSYS */
    r = sync_recv(record_fd, &m);
    if (r <= 0)
        return rr_fail(err, r < 0 ? errno : EPIPE,
                       "activity record: revrun's recorder did not take the exec listener");
    if (m.type == SYNC_ERROR)
        return rr_fail(err, m.errnum, "activity record: %s", m.text);
    if (m.type != SYNC_ACK)
        return rr_fail(err, EPROTO, "activity record: revrun's recorder answered %u", m.type);
    close(record_fd);
    return 0;
}

int recorder_connect(int dir_fd, int *fd, struct rr_error *err)
{
    struct sockaddr_un a;
    struct stat st;

    *fd = -1;
    if (fstatat(dir_fd, RECORDER_SOCK, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno == ENOENT)
            return 0; /* made without the record */
        return rr_fail(err, errno, "activity record: %s", RECORDER_SOCK);
    }
    if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
        return rr_fail(err, EPERM, "activity record: %s is not the recorder's", RECORDER_SOCK);
    if (sock_addr(dir_fd, &a, err) < 0)
        return -1;
    *fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return rr_fail(err, errno, "activity record: socket");
    if (connect(*fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
        int e = errno;
        close(*fd);
        *fd = -1;
        return rr_fail(err, e, "activity record: the container's recorder is gone (its execs are "
                               "recorded; this one would not be)");
    }
    return 0;
}
