/* A WebSocket tunnel, once the upstream's 101 has gone to the agent: bytes
 * move both ways as they come, unchanged, in one thread with poll. What
 * the broker keeps over them is what it keeps over a plain request:
 *
 *   agent -> upstream  metered frame by frame (egress/http_upgrade.c): a
 *                      malformed frame or a message over the body cap cuts
 *                      the tunnel;
 *   upstream -> agent  through the echo guard: the credential never
 *                      reaches the agent (no extension was agreed, so the
 *                      frames are plain bytes the guard can read);
 *   both               the idle timeout (no byte either way for idle_ms),
 *                      the stop fd, and one log line when it ends.
 *
 * Either side ending ends the tunnel; a WebSocket close handshake passes
 * through as the frames it is. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "egress/broker_conn.h"
#include "egress/io.h"

struct tunnel {
    struct conn *c;
    size_t held;  /* upstream bytes in c->io not yet cleared by the guard */
    short want;   /* what the upstream's TLS waits for */
    struct eg_ws_meter meter;
    char *in; /* BROKER_IO_BUF: the agent's bytes (c->head still holds the
               * handshake the log line names) */
};

/* Send what the guard clears of c->io[0..held); keep the rest. At the end
 * of the stream (last) a held tail was not the secret after all. */
static int to_agent(struct tunnel *t, bool last)
{
    struct conn *c = t->c;
    size_t send = t->held;

    if (eg_guard_scan(c->b->secret.p, c->b->secret.n, c->io, t->held, &send) < 0) {
        c->note = "tunnel cut: upstream sent the credential";
        return -1;
    }
    if (last)
        send = t->held;
    if (send > 0 && conn_send(c, c->io, send) != 0) {
        c->note = "agent went away mid-tunnel";
        return -1;
    }
    t->held -= send;
    memmove(c->io, c->io + send, t->held);
    return 0;
}

/* Everything the upstream has for us now. 1 when its stream ended. */
static int from_upstream(struct tunnel *t)
{
    struct conn *c = t->c;
    size_t cap = BROKER_IO_BUF + c->b->secret.n;

    for (;;) {
        int r = tls_read_some(&c->up, c->io + t->held, cap - t->held, &t->want);

        if (r == TLS_AGAIN)
            return 0;
        if (r == 0)
            return to_agent(t, true) < 0 ? -1 : 1;
        if (r < 0) {
            c->note = "tunnel cut: upstream error";
            return -1;
        }
        t->held += (size_t)r;
        if (to_agent(t, false) < 0)
            return -1;
    }
}

/* What the agent sent, metered, to the upstream. 1 when the agent ended. */
static int from_agent(struct tunnel *t)
{
    struct conn *c = t->c;
    const char *why = NULL;
    ssize_t n = recv(c->client, t->in, BROKER_IO_BUF, MSG_DONTWAIT);

    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return 0;
    if (n <= 0)
        return 1;
    c->bytes_up += (uint64_t)n;
    if (eg_ws_meter_feed(&t->meter, t->in, (size_t)n, c->b->lim.max_body, &why) < 0) {
        c->note = why; /* static text: http_upgrade.c's own wording */
        return -1;
    }
    if (tls_write_all(&c->up, t->in, (size_t)n, &c->uw) != 0) {
        /* What the upstream sent before it closed (its close frame, say)
         * still reaches the agent. */
        from_upstream(t);
        c->note = "tunnel cut: upstream closed";
        return -1;
    }
    return 0;
}

static int wait_both(struct tunnel *t, struct pollfd p[3])
{
    struct conn *c = t->c;
    int r;

    p[0] = (struct pollfd){.fd = c->client, .events = POLLIN};
    p[1] = (struct pollfd){.fd = c->up.fd, .events = t->want};
    p[2] = (struct pollfd){.fd = c->b->stop_fd, .events = POLLIN};
    do
        r = poll(p, 3, (int)c->b->idle_ms);
    while (r < 0 && errno == EINTR);
    if (r == 0)
        c->note = "tunnel cut: idle";
    else if (r < 0)
        c->note = "tunnel cut: poll failed";
    else if (p[2].revents != 0)
        c->note = "tunnel cut: broker stopping";
    else
        return 0;
    return -1;
}

static void pump(struct tunnel *t)
{
    struct pollfd p[3];

    /* Frames that came with the 101, and any the TLS layer holds already. */
    if (to_agent(t, false) < 0 || from_upstream(t) != 0)
        return;
    for (;;) {
        int r = 0;

        if (wait_both(t, p) < 0)
            return;
        if (p[1].revents != 0)
            r = from_upstream(t);
        if (r == 0 && p[0].revents != 0)
            r = from_agent(t);
        if (r != 0)
            return;
    }
}

void broker_tunnel(struct conn *c, size_t held)
{
    struct tunnel t = {.c = c, .held = held, .want = POLLIN, .in = malloc(BROKER_IO_BUF)};

    if (t.in == NULL) {
        c->note = "tunnel cut: out of memory";
        return;
    }
    pump(&t);
    free(t.in);
}
