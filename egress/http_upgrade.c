/* WebSocket upgrades: the handshake the broker will carry, the upstream's
 * answer to it, and the meter over the agent's frames. Pure functions over
 * bytes, pinned by tests/test_egress_upgrade.c. */
#include <string.h>


#include "egress/http_head.h"
#include "egress/ossl.h"

static const char ws_guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

static size_t count_named(const struct eg_header *h, size_t n, const char *name)
{
    size_t c = 0;

    for (size_t i = 0; i < n; i++)
        c += eg_slice_ieq(h[i].name, name);
    return c;
}

static const struct eg_header *named(const struct eg_header *h, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (eg_slice_ieq(h[i].name, name))
            return &h[i];
    return NULL;
}

/* Does any field of that name carry token (comma-separated, any case)? */
static bool has_token(const struct eg_header *h, size_t n, const char *name, const char *token)
{
    size_t tn = strlen(token);

    for (size_t i = 0; i < n; i++) {
        const char *p = h[i].value.p, *end = p + h[i].value.n;

        if (!eg_slice_ieq(h[i].name, name))
            continue;
        while (p < end) {
            const char *comma = memchr(p, ',', (size_t)(end - p));
            const char *e = comma ? comma : end;
            const char *s = p;

            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            if ((size_t)(e - s) == tn && strncasecmp(s, token, tn) == 0)
                return true;
            p = comma ? comma + 1 : end;
        }
    }
    return false;
}

static bool is_b64(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/';
}

/* 16 bytes in base64: 22 digits, the last one with its low 4 bits clear
 * ('A', 'Q', 'g' or 'w'), then "==". */
static bool valid_key(struct eg_slice k)
{
    if (k.n != 24 || k.p[22] != '=' || k.p[23] != '=')
        return false;
    for (size_t i = 0; i < 22; i++)
        if (!is_b64(k.p[i]))
            return false;
    return strchr("AQgw", k.p[21]) != NULL;
}

static bool any_ws_field(const struct eg_request *req)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (req->headers[i].name.n >= 14 &&
            strncasecmp(req->headers[i].name.p, "sec-websocket-", 14) == 0)
            return true;
    return false;
}

static int check_handshake(const struct eg_request *req, struct eg_refusal *why)
{
    const struct eg_header *h = req->headers;
    size_t n = req->n_headers;
    const struct eg_header *ver = named(h, n, "sec-websocket-version");
    const struct eg_header *key = named(h, n, "sec-websocket-key");

    if (!eg_slice_ieq(req->method, "GET") || req->minor != 1)
        return eg_refuse(why, 400, "WebSocket upgrade other than GET over HTTP/1.1");
    if (req->body != EG_BODY_NONE || req->expect_continue)
        return eg_refuse(why, 400, "WebSocket upgrade with a body");
    if (!has_token(h, n, "connection", "upgrade"))
        return eg_refuse(why, 400, "Upgrade without \"Connection: upgrade\"");
    if (count_named(h, n, "sec-websocket-version") != 1 || !eg_slice_ieq(ver->value, "13"))
        return eg_refuse(why, 400, "WebSocket version other than 13");
    if (count_named(h, n, "sec-websocket-key") != 1 || !valid_key(key->value))
        return eg_refuse(why, 400, "malformed Sec-WebSocket-Key");
    if (count_named(h, n, "sec-websocket-accept") != 0)
        return eg_refuse(why, 400, "Sec-WebSocket-Accept in a request");
    return 0;
}

int eg_upgrade_check(struct eg_request *req, struct eg_refusal *why)
{
    size_t n_up = count_named(req->headers, req->n_headers, "upgrade");
    const struct eg_header *up = named(req->headers, req->n_headers, "upgrade");

    req->websocket = false;
    if (n_up == 0) {
        if (any_ws_field(req))
            return eg_refuse(why, 400, "WebSocket fields without an upgrade");
        return 0;
    }
    if (n_up > 1 || !eg_slice_ieq(up->value, "websocket"))
        return eg_refuse(why, 501, "only WebSocket upgrades are carried");
    if (check_handshake(req, why) < 0)
        return EG_REFUSED;
    req->websocket = true;
    return 0;
}

/* base64(SHA-1(key + GUID)): 28 characters and a NUL. */
static int expected_accept(struct eg_slice key, char out[29])
{
    unsigned char in[24 + sizeof(ws_guid)], md[EVP_MAX_MD_SIZE];
    unsigned md_len = 0;
    struct rr_error err;

    /* Loaded by the broker already; a unit test may get here first. */
    if (eg_ossl_load(&err) < 0)
        return -1;
    memcpy(in, key.p, 24);
    memcpy(in + 24, ws_guid, sizeof(ws_guid) - 1);
    if (EVP_Digest(in, 24 + sizeof(ws_guid) - 1, md, &md_len, EVP_sha1(), NULL) != 1 ||
        md_len != 20)
        return -1;
    return EVP_EncodeBlock((unsigned char *)out, md, 20) == 28 ? 0 : -1;
}

int eg_ws_response_check(const struct eg_request *req, const struct eg_response *resp,
                         const char **why)
{
    const struct eg_header *h = resp->headers;
    size_t n = resp->n_headers;
    const struct eg_header *key = eg_request_header(req, "sec-websocket-key");
    const struct eg_header *acc = named(h, n, "sec-websocket-accept");
    char want[29];

    *why = "upstream's WebSocket handshake is not valid";
    if (!req->websocket || key == NULL || resp->status != 101)
        return -1;
    if (count_named(h, n, "upgrade") != 1 || !eg_slice_ieq(named(h, n, "upgrade")->value,
                                                            "websocket"))
        return -1;
    if (!has_token(h, n, "connection", "upgrade"))
        return -1;
    if (count_named(h, n, "sec-websocket-accept") != 1 || expected_accept(key->value, want) < 0 ||
        !eg_slice_ieq(acc->value, want) || memcmp(acc->value.p, want, 28) != 0)
        return -1;
    if (count_named(h, n, "sec-websocket-extensions") != 0) {
        *why = "upstream chose a WebSocket extension nobody offered";
        return -1;
    }
    return 0;
}

/* ---- the meter ---------------------------------------------------------- */

/* Bytes of header the frame whose first two bytes are hdr needs. */
static unsigned header_size(const unsigned char *hdr)
{
    unsigned len7 = hdr[1] & 0x7f;
    unsigned n = 2 + ((hdr[1] & 0x80) ? 4 : 0);

    return n + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
}

static int frame_start(struct eg_ws_meter *m, uint64_t max_msg, const char **why)
{
    const unsigned char *h = m->hdr;
    bool fin = h[0] & 0x80;
    unsigned op = h[0] & 0x0f, len7 = h[1] & 0x7f;
    uint64_t len = len7;

    if (h[0] & 0x70)
        return *why = "WebSocket frame with an RSV bit (no extension was agreed)", -1;
    if (!(h[1] & 0x80))
        return *why = "unmasked WebSocket frame from the agent", -1;
    if (len7 == 126)
        len = (uint64_t)h[2] << 8 | h[3];
    if (len7 == 127) {
        len = 0;
        for (int i = 2; i < 10; i++)
            len = len << 8 | h[i];
        if (len >> 63)
            return *why = "WebSocket frame length with the top bit set", -1;
    }
    if (op >= 8) {
        if (op > 10 || !fin || len > 125)
            return *why = "malformed WebSocket control frame", -1;
    } else {
        if (op > 2 || (op == 0) != m->in_message)
            return *why = "WebSocket frame out of sequence", -1;
        if (len > max_msg - m->msg_total)
            return *why = "WebSocket message over the request body cap", -1;
        m->msg_total += len;
        m->in_message = !fin;
        if (fin) {
            m->msg_total = 0;
            m->messages++;
        }
    }
    m->payload_left = len;
    m->in_frame = len > 0;
    return 0;
}

int eg_ws_meter_feed(struct eg_ws_meter *m, const char *buf, size_t len, uint64_t max_msg,
                     const char **why)
{
    size_t i = 0;

    while (i < len) {
        if (m->in_frame) {
            uint64_t take = len - i < m->payload_left ? len - i : m->payload_left;
            m->payload_left -= take;
            i += (size_t)take;
            m->in_frame = m->payload_left > 0;
            continue;
        }
        m->hdr[m->hdr_len++] = (unsigned char)buf[i++];
        if (m->hdr_len < 2 || m->hdr_len < header_size(m->hdr))
            continue;
        m->hdr_len = 0;
        if (frame_start(m, max_msg, why) < 0)
            return -1;
    }
    return 0;
}
