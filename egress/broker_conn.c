/* One agent connection, one request: read and judge the head, open the
 * upstream, forward the body, stream the response back, close. One request
 * per connection ("Connection: close" both ways) keeps the framing of every
 * byte the broker forwards decided by one parse, its own. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/broker_conn.h"
#include "egress/io.h"

int conn_send(struct conn *c, const void *buf, size_t n)
{
    int r = io_send_all(c->client, buf, n, c->b->stop_fd, c->b->idle_ms);

    if (r == 0)
        c->bytes_down += n;
    return r;
}

void conn_reply(struct conn *c, int status, const char *reason)
{
    char buf[512];
    size_t n = eg_local_reply(status, reason, buf, sizeof(buf));

    conn_send(c, buf, n);
    c->status = status;
    c->note = reason;
}

/* Receive into c->head until the head is complete. 0 when complete; -1
 * when the connection is over (refused with a reply, or gone). */
static int read_head(struct conn *c, struct eg_refusal *why)
{
    for (;;) {
        int r = eg_request_parse(c->head, c->head_len, &c->b->lim, &c->req, why);
        ssize_t n;

        if (r == EG_COMPLETE)
            return 0;
        if (r == EG_REFUSED) {
            conn_reply(c, why->status, why->reason);
            return -1;
        }
        r = io_wait(c->client, POLLIN, c->b->stop_fd, -1, c->b->idle_ms);
        if (r == IO_TIMEOUT && c->head_len > 0)
            conn_reply(c, 408, "request head not received in time");
        if (r != IO_READY)
            return -1;
        n = recv(c->client, c->head + c->head_len, c->b->lim.max_head - c->head_len, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -1; /* gone before asking anything */
        c->head_len += (size_t)n;
        c->bytes_up += (uint64_t)n;
    }
}

static bool is_healthz(const struct eg_request *req)
{
    struct eg_slice path = eg_target_path(req->target);

    return (eg_slice_ieq(req->method, "GET") || eg_slice_ieq(req->method, "HEAD")) &&
           path.n == 8 && memcmp(path.p, "/healthz", 8) == 0;
}

static int open_upstream(struct conn *c)
{
    const char *why = NULL;
    SSL_SESSION *resume = broker_session_get(c->b);
    int r = tls_open(c->b->ctx, resume, &c->b->up, &c->uw, &c->up, &why);

    SSL_SESSION_free(resume);
    if (r == 0)
        return 0;
    if (r == IO_TIMEOUT)
        conn_reply(c, 504, "upstream did not answer in time");
    else if (r != IO_STOPPED && r != IO_HANGUP)
        conn_reply(c, 502, why);
    return -1;
}

static int send_head(struct conn *c)
{
    const struct egress_broker *b = c->b;
    struct eg_forward fw = {b->up.host_header, b->header, b->header_prefix, b->secret.p,
                            b->secret.n};
    size_t cap = b->lim.max_head + b->secret.n + 512;
    char *out = malloc(cap);
    size_t n = out ? eg_request_rewrite(&c->req, &fw, out, cap) : 0;
    int r = n > 0 ? tls_write_all(&c->up, out, n, &c->uw) : IO_ERROR;

    if (out != NULL) {
        explicit_bzero(out, cap); /* it held the credential */
        free(out);
    }
    if (r != 0 && c->status == 0)
        conn_reply(c, 502, "upstream closed while the request was sent");
    c->credential = c->credential || r == 0;
    return r == 0 ? 0 : -1;
}

/* How many of buf's n body bytes to forward; -1 when the body is refused
 * (and answered). *done when the body has ended: bytes after it (a
 * pipelined request) are never forwarded. */
static int body_take(struct conn *c, const char *buf, size_t n, size_t *take, bool *done)
{
    struct eg_refusal why;
    int r;

    if (c->req.body == EG_BODY_LENGTH) {
        *take = n < c->body_left ? n : (size_t)c->body_left;
        c->body_left -= *take;
        *done = c->body_left == 0;
        return 0;
    }
    r = eg_chunked_feed(&c->chunked, buf, n, c->b->lim.max_body, take, &why);
    if (r == EG_REFUSED) {
        conn_reply(c, why.status, why.reason);
        return -1;
    }
    *done = r == EG_COMPLETE;
    return 0;
}

/* The next piece of body into dst: what came with the head first, then
 * from the socket. *take is how much of it belongs to the body. */
static int next_body(struct conn *c, char *dst, size_t cap, size_t *take, bool *done)
{
    size_t n = c->left_n < cap ? c->left_n : cap;

    while (n == 0) {
        int r = io_wait(c->client, POLLIN, c->b->stop_fd, -1, c->b->idle_ms);
        ssize_t got;

        if (r == IO_TIMEOUT)
            conn_reply(c, 408, "request body not received in time");
        if (r != IO_READY)
            return -1;
        got = recv(c->client, dst, cap, 0);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            return -1; /* the agent went away mid-body */
        n = (size_t)got;
        c->bytes_up += (uint64_t)got;
    }
    if (c->left_n > 0) {
        memcpy(dst, c->left_p, n);
        c->left_p += n;
        c->left_n -= n;
    }
    return body_take(c, dst, n, take, done);
}

/* Read (and judge) as much of the body as fits in c->io before anything is
 * sent upstream: a request whose body is refused, as most are small, then
 * never reaches the upstream at all. */
static int prefetch_body(struct conn *c, bool *done)
{
    c->left_p = c->head + c->req.head_len;
    c->left_n = c->head_len - c->req.head_len;
    c->body_left = c->req.content_length;
    c->io_len = 0;
    *done = c->req.body == EG_BODY_NONE;
    while (!*done && c->io_len < BROKER_IO_BUF) {
        size_t take = 0;
        if (next_body(c, c->io + c->io_len, BROKER_IO_BUF - c->io_len, &take, done) < 0)
            return -1;
        c->io_len += take;
    }
    return 0;
}

/* The rest of a body larger than c->io, straight through. */
static int forward_rest_of_body(struct conn *c, bool done)
{
    while (!done) {
        size_t take = 0;
        if (next_body(c, c->io, BROKER_IO_BUF, &take, &done) < 0)
            return -1;
        if (tls_write_all(&c->up, c->io, take, &c->uw) != 0) {
            conn_reply(c, 502, "upstream closed while the request was sent");
            return -1;
        }
    }
    return 0;
}

static void serve(struct conn *c)
{
    struct eg_refusal why;
    bool done;

    if (read_head(c, &why) < 0)
        return;
    if (is_healthz(&c->req)) {
        conn_reply(c, 200, "ok");
        c->note = NULL;
        return;
    }
    if (eg_target_check(c->req.target, &c->b->allow, &why) < 0) {
        conn_reply(c, why.status, why.reason);
        return;
    }
    /* The agent waits for "100 Continue" before it sends the body; the
     * upstream never sees Expect. */
    if (c->req.expect_continue && c->req.body != EG_BODY_NONE &&
        conn_send(c, "HTTP/1.1 100 Continue\r\n\r\n", 25) != 0)
        return;
    if (prefetch_body(c, &done) < 0)
        return;
    /* A client sends no frame before the 101 (RFC 6455 4.1): bytes there
     * could only be a request smuggled behind the handshake. */
    if (c->req.websocket && c->left_n > 0) {
        conn_reply(c, 400, "bytes after a WebSocket handshake");
        return;
    }
    if (open_upstream(c) < 0 || send_head(c) < 0)
        return;
    if (c->io_len > 0 && tls_write_all(&c->up, c->io, c->io_len, &c->uw) != 0) {
        conn_reply(c, 502, "upstream closed while the request was sent");
        return;
    }
    if (forward_rest_of_body(c, done) < 0)
        return;
    broker_relay_response(c);
}

void broker_conn_serve(struct egress_broker *b, int client_fd)
{
    struct conn c = {
        .b = b,
        .client = client_fd,
        .up = {NULL, -1},
        .uw = {b->stop_fd, client_fd, b->idle_ms},
    };

    clock_gettime(CLOCK_REALTIME, &c.started);
    clock_gettime(CLOCK_MONOTONIC, &c.t0);
    c.head = malloc(b->lim.max_head);
    c.io = malloc(BROKER_IO_BUF + b->secret.n);
    if (c.head != NULL && c.io != NULL)
        serve(&c);
    if (c.status != 0)
        broker_log(b, &c);
    tls_close(&c.up);
    free(c.head);
    free(c.io);
    close(client_fd);
}
