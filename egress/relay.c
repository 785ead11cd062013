/* The relay: the agent's only route out, and deliberately dumb. It
 * accepts on loopback inside the container's network namespace and pumps
 * bytes to and from the broker's socket; it parses nothing and decides
 * nothing, so confining it like the agent costs no policy. One thread, one
 * poll loop, bounded connections and buffers. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "egress/egress.h"
#include "egress/io.h"

#define RELAY_BUF (32 * 1024)
#define RELAY_MAX_CONNS_DEFAULT 64u
#define RELAY_IDLE_DEFAULT_MS (3600u * 1000u)
#define RELAY_MAX_CONNS_CAP 1024u

/* Bytes read from fd[i] waiting to be written to fd[1 - i]. */
struct half {
    char buf[RELAY_BUF];
    size_t off, len;
    bool eof;  /* fd[i] said end of stream */
    bool shut; /* ...and it was passed on as a half-close */
};

struct pump {
    int fd[2]; /* 0: the agent, 1: the broker */
    struct half h[2];
    unsigned long long last;
};

static void pump_free(struct pump *p)
{
    close(p->fd[0]);
    close(p->fd[1]);
    free(p);
}

/* Direction i can carry nothing more (its reader or writer is gone): drop
 * what it holds. The other direction goes on, so that a reply already on
 * its way (a 503, a 400 sent before the request was read whole) still
 * reaches the agent. */
static void half_dead(struct half *h)
{
    h->off = h->len = 0;
    h->eof = h->shut = true;
}

/* Write what h[i] holds to fd[1 - i]; once it is empty and fd[i] has
 * ended, pass the end on as a half-close. */
static void pump_flush(struct pump *p, int i)
{
    struct half *h = &p->h[i];

    while (h->len > h->off) {
        ssize_t n = send(p->fd[1 - i], h->buf + h->off, h->len - h->off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0) {
            half_dead(h);
            return;
        }
        h->off += (size_t)n;
    }
    h->off = h->len = 0;
    if (h->eof && !h->shut) {
        shutdown(p->fd[1 - i], SHUT_WR);
        h->shut = true;
    }
}

/* Read from fd[i] into h[i] and pass it on at once. A read error ends the
 * direction like an end of stream: what was read before it still goes. */
static void pump_fill(struct pump *p, int i)
{
    struct half *h = &p->h[i];
    ssize_t n;

    do
        n = recv(p->fd[i], h->buf, sizeof(h->buf), MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    h->off = 0;
    h->len = n > 0 ? (size_t)n : 0;
    h->eof = n <= 0;
    pump_flush(p, i);
}

static short pump_events(const struct pump *p, int i)
{
    short ev = 0;

    if (!p->h[i].eof && p->h[i].len == 0)
        ev |= POLLIN;
    if (p->h[1 - i].len > p->h[1 - i].off)
        ev |= POLLOUT;
    return ev;
}

/* One poll round's events for a pump; false when the pump is finished. */
static bool pump_step(struct pump *p, const struct pollfd *pf, unsigned long long now)
{
    for (int i = 0; i < 2; i++) {
        short re = pf[i].revents;

        if (re == 0)
            continue;
        p->last = now;
        if (re & POLLOUT)
            pump_flush(p, 1 - i);
        if ((pf[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR)))
            pump_fill(p, i);
        else if (re & (POLLHUP | POLLERR))
            half_dead(&p->h[1 - i]); /* nothing can be written to fd[i] */
    }
    return !(p->h[0].shut && p->h[1].shut);
}

/* What the agent reads when the broker is not there: still HTTP. */
static void refuse(int fd)
{
    static const char msg[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                              "Content-Length: 30\r\nConnection: close\r\n\r\n"
                              "revrun egress: broker is down\n";

    (void)!send(fd, msg, sizeof(msg) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
}

struct relay {
    int listen_fd, stop_fd;
    egress_connect_fn connect_broker;
    void *arg;
    unsigned max, idle_ms;
    struct pump **pumps;
    struct pollfd *pfd;
    size_t n;
};

static void relay_accept(struct relay *r)
{
    struct rr_error ignored;
    int a = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    int b;
    struct pump *p;

    if (a < 0) {
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            usleep(10000);
        return;
    }
    b = r->connect_broker(r->arg, &ignored);
    p = b >= 0 ? calloc(1, sizeof(*p)) : NULL;
    if (p == NULL) {
        if (b >= 0)
            close(b);
        refuse(a);
        return;
    }
    *p = (struct pump){.fd = {a, b}, .last = io_now_ms()};
    r->pumps[r->n++] = p;
}

/* Poll once over the listener, the stop fd and every pump. 1 to stop. */
static int relay_round(struct relay *r)
{
    unsigned long long now = io_now_ms();
    int ready;

    r->pfd[0] = (struct pollfd){r->listen_fd, r->n < r->max ? POLLIN : 0, 0};
    r->pfd[1] = (struct pollfd){r->stop_fd, POLLIN, 0};
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < 2; k++)
            r->pfd[2 + 2 * i + (size_t)k] =
                (struct pollfd){r->pumps[i]->fd[k], pump_events(r->pumps[i], k), 0};
    ready = poll(r->pfd, 2 + 2 * r->n, 1000);
    if (ready < 0)
        return errno == EINTR ? 0 : -1;
    if (r->pfd[1].revents != 0)
        return 1;
    now = io_now_ms();
    for (size_t i = r->n; i-- > 0;) {
        struct pump *p = r->pumps[i];
        if (!pump_step(p, &r->pfd[2 + 2 * i], now) || now - p->last > r->idle_ms) {
            pump_free(p);
            r->pumps[i] = r->pumps[--r->n];
        }
    }
    if (r->pfd[0].revents & POLLIN)
        relay_accept(r);
    return 0;
}

int egress_relay_serve(int listen_fd, int stop_fd, egress_connect_fn connect_broker, void *arg,
                       const struct egress_relay_opts *o, struct rr_error *err)
{
    struct relay r = {listen_fd, stop_fd, connect_broker, arg, RELAY_MAX_CONNS_DEFAULT,
                      RELAY_IDLE_DEFAULT_MS, NULL, NULL, 0};
    int ret;

    if (o != NULL && o->max_conns != 0)
        r.max = o->max_conns < RELAY_MAX_CONNS_CAP ? o->max_conns : RELAY_MAX_CONNS_CAP;
    if (o != NULL && o->idle_timeout_ms != 0)
        r.idle_ms = o->idle_timeout_ms;
    r.pumps = calloc(r.max, sizeof(*r.pumps));
    r.pfd = calloc(2 + 2 * (size_t)r.max, sizeof(*r.pfd));
    if (r.pumps == NULL || r.pfd == NULL) {
        free(r.pumps);
        free(r.pfd);
        return rr_fail(err, ENOMEM, "relay");
    }
    while ((ret = relay_round(&r)) == 0)
        ;
    if (ret < 0)
        rr_fail(err, errno, "relay: poll");
    for (size_t i = 0; i < r.n; i++)
        pump_free(r.pumps[i]);
    free(r.pumps);
    free(r.pfd);
    return ret < 0 ? -1 : 0;
}

int egress_relay_run(uint16_t port, const char *socket_path, int stop_fd, struct rr_error *err)
{
    _cleanup_close_ int fd = egress_listen_loopback(port, err);

    if (fd < 0)
        return -1;
    return egress_relay_serve(fd, stop_fd, egress_connect_unix, (void *)socket_path, NULL, err);
}
