#include "runtime/container/sync.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/fsutil.h"

int sync_send(int fd, uint32_t type, int64_t value, int64_t value2, const char *text)
{
    struct sync_msg m = {.type = type, .value = value, .value2 = value2};
    ssize_t n;

    if (text != NULL)
        snprintf(m.text, sizeof(m.text), "%s", text);
    do {
        n = send(fd, &m, sizeof(m), MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(m) ? 0 : -1;
}

int sync_send_error(int fd, const struct rr_error *err)
{
    struct sync_msg m = {.type = SYNC_ERROR, .errnum = err->errnum};
    ssize_t n;

    snprintf(m.text, sizeof(m.text), "%s", err->msg);
    do {
        n = send(fd, &m, sizeof(m), MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(m) ? 0 : -1;
}

int sync_recv(int fd, struct sync_msg *m)
{
    ssize_t n;

    do {
        n = recv(fd, m, sizeof(*m), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    if (n == 0)
        return 0;
    if (n != (ssize_t)sizeof(*m)) {
        errno = EPROTO;
        return -1;
    }
    m->text[sizeof(m->text) - 1] = '\0';
    return 1;
}

int sync_expect(int fd, uint32_t type, struct sync_msg *m, struct rr_error *err)
{
    int r = sync_recv(fd, m);

    if (r < 0)
        return rr_fail(err, errno, "waiting for the container");
    if (r == 0)
        return rr_fail(err, EPIPE, "the container's setup ended without a word");
    if (m->type == SYNC_ERROR)
        return rr_fail(err, m->errnum, "%s", m->text);
    if (m->type != type)
        return rr_fail(err, EPROTO, "unexpected message %u (wanted %u)", m->type, type);
    return 0;
}

int sync_send_fd(int fd, uint32_t type, int passed)
{
    struct sync_msg m = {.type = type};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = &m, .iov_len = sizeof(m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    ssize_t n;

    memset(u.buf, 0, sizeof(u.buf));
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &passed, sizeof(int));
    do {
        n = sendmsg(fd, &mh, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof(m) ? 0 : -1;
}

int sync_recv_fd(int fd, struct sync_msg *m, int *passed)
{
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = m, .iov_len = sizeof(*m)};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
                        .msg_controllen = sizeof(u.buf)};
    ssize_t n;

    *passed = -1;
    do {
        n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(passed, CMSG_DATA(c), sizeof(int));
    if (n == 0)
        return 0;
    if (n != (ssize_t)sizeof(*m)) {
        if (*passed >= 0)
            close(*passed);
        *passed = -1;
        errno = EPROTO;
        return -1;
    }
    m->text[sizeof(m->text) - 1] = '\0';
    return 1;
}

int sync_wait_for_start(int fifo_fd, int *held, const sigset_t *block, struct rr_error *err)
{
    char path[64];
    int fd;

    snprintf(path, sizeof(path), "/proc/self/fd/%d", fifo_fd);
    do {
        fd = open(path, O_WRONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return rr_fail(err, errno, "open exec fifo");
    close(fifo_fd);
    if (block != NULL && sigprocmask(SIG_BLOCK, block, NULL) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "block signals");
    }
    if (rr_write_all(fd, "0", 1) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "write exec fifo");
    }
    if (held != NULL)
        *held = fd;
    else
        close(fd);
    return 0;
}
