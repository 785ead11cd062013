#include "egress/io.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>

unsigned long long io_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000ull + (unsigned long long)ts.tv_nsec / 1000000ull;
}

int io_wait(int fd, short events, int stop_fd, int watch_fd, unsigned timeout_ms)
{
    struct pollfd p[3] = {
        {.fd = fd, .events = events},
        {.fd = stop_fd, .events = POLLIN},
        {.fd = watch_fd, .events = 0},
    };
    unsigned long long deadline = io_now_ms() + timeout_ms;

    for (;;) {
        unsigned long long now = io_now_ms();
        int r;

        if (now >= deadline)
            return IO_TIMEOUT;
        r = poll(p, 3, (int)(deadline - now));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return IO_ERROR;
        if (r == 0)
            return IO_TIMEOUT;
        if (p[1].revents != 0)
            return IO_STOPPED;
        if (p[2].revents & (POLLHUP | POLLERR))
            return IO_HANGUP;
        if (p[0].revents != 0)
            return IO_READY;
    }
}

int io_send_all(int fd, const char *buf, size_t len, int stop_fd, unsigned timeout_ms)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        int w;

        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return IO_ERROR;
        w = io_wait(fd, POLLOUT, stop_fd, -1, timeout_ms);
        if (w != IO_READY)
            return w;
    }
    return 0;
}
