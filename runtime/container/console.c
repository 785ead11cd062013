#include "runtime/container/console.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "common/cleanup.h"

int console_connect(const char *path, struct rr_error *err)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    _cleanup_close_ int fd = -1;

    if (strlen(path) >= sizeof(sa.sun_path))
        return rr_fail(err, ENAMETOOLONG, "--console-socket %s", path);
    memcpy(sa.sun_path, path, strlen(path));
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return rr_fail(err, errno, "--console-socket: socket");
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return rr_fail(err, errno, "--console-socket %s", path);
    return rr_steal_fd(&fd);
}

static int send_fd(int sock, int fd)
{
    char name[] = "/dev/ptmx";
    char ctl[CMSG_SPACE(sizeof(int))] = {0};
    struct iovec iov = {.iov_base = name, .iov_len = sizeof(name) - 1};
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl)};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    ssize_t n;

    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(int));
    do {
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n < 0 ? -1 : 0;
}

int console_make_pty(int console_fd, struct rr_error *err)
{
    _cleanup_close_ int master = -1;
    _cleanup_close_ int sock = console_fd;
    int unlock = 0;
    int slave;

    /* The container's devpts (newinstance): ptys of the host are not there. */
    master = open("/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0)
        return rr_fail(err, errno, "terminal: open /dev/pts/ptmx");
    if (ioctl(master, TIOCSPTLCK, &unlock) < 0)
        return rr_fail(err, errno, "terminal: unlock the pty");
    /* The peer of this very master, with no path lookup to race. */
    slave = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (slave < 0)
        return rr_fail(err, errno, "terminal: open the pty's slave");
    if (send_fd(sock, master) < 0) {
        int e = errno;
        close(slave);
        return rr_fail(err, e, "terminal: send the pty to the console socket");
    }
    return slave;
}

int console_attach(int slave_fd)
{
    if (ioctl(slave_fd, TIOCSCTTY, 0) < 0)
        return -1;
    for (int fd = 0; fd <= 2; fd++)
        if (dup2(slave_fd, fd) < 0)
            return -1;
    if (slave_fd > 2)
        close(slave_fd);
    return 0;
}

/* fd, a terminal, replaced by a write-only open of that terminal: the same
 * tty through /proc/self/fd, never its controlling one (O_NOCTTY). */
static int tty_write_only(int fd, struct rr_error *err)
{
    char path[32];
    int flags = fcntl(fd, F_GETFL), w;

    if (flags < 0)
        return rr_fail(err, errno, "stdio: fd %d", fd);
    if ((flags & O_ACCMODE) == O_WRONLY)
        return 0;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    w = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (flags & O_APPEND));
    if (w < 0)
        return rr_fail(err, errno, "stdio: reopen the terminal on fd %d write-only", fd);
    if (dup2(w, fd) < 0) {
        close(w);
        return rr_fail(err, errno, "stdio: fd %d", fd);
    }
    close(w);
    return 0;
}

int console_stdio_no_input(bool *changed, struct rr_error *err)
{
    *changed = false;
    if (isatty(STDIN_FILENO)) {
        _cleanup_close_ int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0 || dup2(null, STDIN_FILENO) < 0)
            return rr_fail(err, errno, "stdio: /dev/null for stdin");
        *changed = true;
    }
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (isatty(fd) && tty_write_only(fd, err) < 0)
            return -1;
    return 0;
}
