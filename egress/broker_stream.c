/* The response half: the upstream's head, judged and rewritten, then its
 * body streamed to the agent as it arrives. Once the first byte has gone to
 * the agent, a failure only ever cuts the stream: no error text is spliced
 * into it, so the agent's client sees a truncated response, not a forged
 * one. */
#include <stdlib.h>
#include <string.h>

#include "egress/broker_conn.h"
#include "egress/io.h"

/* An io_wait code from the upstream side, before any response byte went
 * to the agent. */
static void head_failed(struct conn *c, int r)
{
    if (r == 0)
        conn_reply(c, 502, "upstream closed before responding");
    else if (r == IO_TIMEOUT)
        conn_reply(c, 504, "upstream did not answer in time");
    else if (r == IO_ERROR)
        conn_reply(c, 502, "upstream connection failed");
    /* IO_STOPPED, IO_HANGUP: nobody to answer */
}

static bool echoes_secret(const struct conn *c, size_t len)
{
    return memmem(c->io, len, c->b->secret.p, c->b->secret.n) != NULL;
}

/* Read into c->io until a final (non-1xx) head is complete. */
static int read_response_head(struct conn *c, struct eg_response *resp)
{
    c->io_len = 0;
    for (;;) {
        int r = eg_response_parse(c->io, c->io_len, BROKER_IO_BUF, resp);

        if (r == EG_REFUSED) {
            conn_reply(c, 502, "malformed upstream response head");
            return -1;
        }
        if (r == EG_COMPLETE && echoes_secret(c, resp->head_len)) {
            conn_reply(c, 502, "upstream response carried the credential");
            return -1;
        }
        if (r == EG_COMPLETE && resp->status == 101) {
            const char *why = "upstream switched protocols";
            if (!c->req.websocket || eg_ws_response_check(&c->req, resp, &why) < 0) {
                conn_reply(c, 502, why);
                return -1;
            }
            return 0;
        }
        if (r == EG_COMPLETE && resp->status >= 200)
            return 0;
        if (r == EG_COMPLETE) { /* an interim 1xx: the agent never asked for it */
            c->io_len -= resp->head_len;
            memmove(c->io, c->io + resp->head_len, c->io_len);
            continue;
        }
        r = tls_read(&c->up, c->io + c->io_len, BROKER_IO_BUF - c->io_len, &c->uw);
        if (r <= 0) {
            head_failed(c, r);
            return -1;
        }
        c->io_len += (size_t)r;
    }
}

static int send_response_head(struct conn *c, const struct eg_response *resp)
{
    size_t cap = resp->head_len + 64;
    char *out = malloc(cap);
    size_t n = out ? eg_response_rewrite(c->io, resp, out, cap) : 0;
    int r;

    if (n == 0) {
        free(out);
        conn_reply(c, 502, "upstream response head too large");
        return -1;
    }
    r = conn_send(c, out, n);
    free(out);
    c->status = resp->status;
    if (r != 0)
        c->note = "agent went away";
    return r == 0 ? 0 : -1;
}

static const char *cut_note(int r)
{
    switch (r) {
    case IO_TIMEOUT: return "stream cut: upstream idle";
    case IO_HANGUP: return "agent went away mid-stream";
    case IO_STOPPED: return "stream cut: broker stopping";
    default: return "stream cut: upstream error";
    }
}

/* c->io[0..len) holds body bytes not yet sent; each pass sends what the
 * echo guard clears and reads more behind what it holds back. */
static void stream_body(struct conn *c, size_t len)
{
    const struct egress_secret *s = &c->b->secret;

    for (;;) {
        size_t send = 0;
        int r;

        if (eg_guard_scan(s->p, s->n, c->io, len, &send) < 0) {
            c->note = "stream cut: upstream response carried the credential";
            return;
        }
        if (send > 0 && conn_send(c, c->io, send) != 0) {
            c->note = "agent went away mid-stream";
            return;
        }
        len -= send;
        memmove(c->io, c->io + send, len);
        r = tls_read(&c->up, c->io + len, BROKER_IO_BUF + s->n - len, &c->uw);
        if (r < 0) {
            c->note = cut_note(r);
            return;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    /* The end of the stream: a held tail was not the secret after all. */
    if (len > 0 && conn_send(c, c->io, len) != 0)
        c->note = "agent went away mid-stream";
    else
        broker_session_keep(c->b, c->up.ssl);
}

void broker_relay_response(struct conn *c)
{
    struct eg_response resp;
    size_t rest;

    if (read_response_head(c, &resp) < 0 || send_response_head(c, &resp) < 0)
        return;
    rest = c->io_len - resp.head_len;
    memmove(c->io, c->io + resp.head_len, rest);
    if (resp.status == 101)
        broker_tunnel(c, rest);
    else
        stream_body(c, rest);
}
