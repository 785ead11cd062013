/* The two listening sockets and the relay's connection to the broker. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "egress/egress.h"

/* A new non-blocking Unix stream socket and the address of path. */
static int unix_socket(const char *path, struct sockaddr_un *sa, struct rr_error *err)
{
    int fd;

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa->sun_path))
        return rr_fail(err, ENAMETOOLONG, "socket path %s", path);
    strcpy(sa->sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return rr_fail(err, errno, "socket");
    return fd;
}

int egress_connect_unix(void *path, struct rr_error *err)
{
    struct sockaddr_un sa;
    _cleanup_close_ int fd = unix_socket(path, &sa, err);

    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return rr_fail(err, errno, "connect to broker at %s", (const char *)path);
    return rr_steal_fd(&fd);
}

/* A socket file that nobody accepts on is what a killed broker leaves. */
static bool stale_socket(const char *path)
{
    struct rr_error ignored;
    struct stat st;
    int fd;

    if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
        return false;
    fd = egress_connect_unix((void *)path, &ignored);
    if (fd >= 0) {
        close(fd);
        return false;
    }
    return ignored.errnum == ECONNREFUSED;
}

int egress_listen_unix(const char *path, struct rr_error *err)
{
    struct sockaddr_un sa;
    _cleanup_close_ int fd = unix_socket(path, &sa, err);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
        if (errno != EADDRINUSE || !stale_socket(path))
            return rr_fail(err, errno, "bind %s", path);
        if (unlink(path) < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
            return rr_fail(err, errno, "bind %s (replacing a stale socket)", path);
    }
    /* Only the owner may connect; the runtime chowns it for the relay. */
    if (chmod(path, 0600) < 0 || listen(fd, 128) < 0) {
        int e = errno;
        unlink(path);
        return rr_fail(err, e, "listen on %s", path);
    }
    return rr_steal_fd(&fd);
}

int egress_listen_loopback(uint16_t port, struct rr_error *err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    _cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;

    if (fd < 0)
        return rr_fail(err, errno, "socket");
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
        return rr_fail(err, errno, "setsockopt(SO_REUSEADDR)");
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return rr_fail(err, errno, "bind 127.0.0.1:%u", (unsigned)port);
    if (listen(fd, 128) < 0)
        return rr_fail(err, errno, "listen on 127.0.0.1:%u", (unsigned)port);
    return rr_steal_fd(&fd);
}

int egress_local_port(int fd, uint16_t *port, struct rr_error *err)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof(sa);

    if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
        return rr_fail(err, errno, "getsockname");
    *port = ntohs(sa.sin_port);
    return 0;
}
