/* WebSocket upgrades: which handshakes the broker carries and which it
 * refuses itself, what it forwards of them, the upstream's 101 it accepts,
 * and the meter over the agent's frames. */
#include <stdio.h>
#include <string.h>

#include "egress/http.h"
#include "tests/tap.h"

static const char secret[] = "sk-REAL-0123456789abcdef";

/* RFC 6455 1.3's example key and its answer. */
#define KEY "dGhlIHNhbXBsZSBub25jZQ=="
#define ACCEPT "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

#define WS_HEAD(extra)                                                                             \
    "GET /v1/responses HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\n"                \
    "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " KEY "\r\n" extra    \
    "\r\n"

static struct eg_request req;

static int parse(const char *in, struct eg_refusal *why)
{
    struct eg_limits lim;

    eg_limits_default(&lim);
    return eg_request_parse(in, strlen(in), &lim, &req, why);
}

static int refused_with(const char *in)
{
    struct eg_refusal why = {0, NULL};

    return parse(in, &why) == EG_REFUSED ? why.status : 0;
}

TEST(a_websocket_handshake_is_recognised)
{
    struct eg_refusal why;

    CHECK(parse(WS_HEAD(""), &why) == EG_COMPLETE && req.websocket);
    CHECK(parse(WS_HEAD("Sec-WebSocket-Protocol: chat\r\n"), &why) == EG_COMPLETE &&
          req.websocket);
    /* tokens in any case, Connection with other tokens */
    CHECK(parse("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: WebSocket\r\n"
                "Connection: keep-alive, UPGRADE\r\nSec-WebSocket-Version: 13\r\n"
                "Sec-WebSocket-Key: " KEY "\r\n\r\n",
                &why) == EG_COMPLETE &&
          req.websocket);
    CHECK(parse("GET /v1/r HTTP/1.1\r\nHost: x\r\n\r\n", &why) == EG_COMPLETE && !req.websocket);
}

TEST(every_other_upgrade_is_refused_at_once)
{
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
                       "Connection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n"
                       "\r\n") == 501);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: TLS/1.2\r\n"
                       "Connection: Upgrade\r\n\r\n") == 501);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket, h2c\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 501);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 501);
}

TEST(a_malformed_handshake_is_refused)
{
    /* not GET, not 1.1, with a body */
    CHECK(refused_with("POST /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 400);
    CHECK(refused_with("GET /v1/r HTTP/1.0\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 400);
    CHECK(refused_with(WS_HEAD("Content-Length: 5\r\n")) == 400);
    CHECK(refused_with(WS_HEAD("Transfer-Encoding: chunked\r\n")) == 400);
    /* no Connection: upgrade */
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: keep-alive\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 400);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: upgrades\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 400);
    /* version */
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 8\r\n"
                       "Sec-WebSocket-Key: " KEY "\r\n\r\n") == 400);
    CHECK(refused_with(WS_HEAD("Sec-WebSocket-Version: 13\r\n")) == 400);
    /* key: missing, short, not base64, not 16 bytes, twice */
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n") == 400);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: abc=\r\n\r\n") == 400);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZ!==\r\n\r\n") == 400);
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZR==\r\n\r\n") == 400);
    CHECK(refused_with(WS_HEAD("Sec-WebSocket-Key: " KEY "\r\n")) == 400);
    CHECK(refused_with(WS_HEAD("Sec-WebSocket-Accept: " ACCEPT "\r\n")) == 400);
}

TEST(websocket_fields_without_an_upgrade_are_refused)
{
    CHECK(refused_with("GET /v1/r HTTP/1.1\r\nHost: x\r\nSec-WebSocket-Key: " KEY "\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n") == 400);
    CHECK(refused_with("POST /v1/r HTTP/1.1\r\nHost: x\r\nsec-websocket-extensions: x\r\n"
                       "Content-Length: 0\r\n\r\n") == 400);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

static size_t rewrite(const char *in, char *out, size_t cap)
{
    struct eg_refusal why;
    struct eg_forward fw = {"api.example.com", "authorization", "Bearer ", secret,
                            strlen(secret)};

    if (parse(in, &why) != EG_COMPLETE)
        return 0;
    size_t n = eg_request_rewrite(&req, &fw, out, cap);
    if (n > 0 && n < cap)
        out[n] = '\0';
    return n;
}

TEST(the_handshake_goes_up_with_the_real_key_and_without_extensions)
{
    char out[4096];

    CHECK(rewrite(WS_HEAD("Authorization: Bearer dummy\r\nSec-WebSocket-Protocol: chat\r\n"
                          "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
                          "OpenAI-Beta: responses_websockets=2026-02-06\r\n"),
                  out, sizeof(out)) > 0);
    CHECK(strncmp(out, "GET /v1/responses HTTP/1.1\r\nHost: api.example.com\r\n", 51) == 0);
    CHECK(strstr(out, "dummy") == NULL);
    CHECK(strstr(out, "authorization: Bearer sk-REAL-0123456789abcdef\r\n") != NULL);
    CHECK(strstr(out, "Sec-WebSocket-Key: " KEY "\r\n") != NULL);
    CHECK(strstr(out, "Sec-WebSocket-Version: 13\r\n") != NULL);
    CHECK(strstr(out, "Sec-WebSocket-Protocol: chat\r\n") != NULL);
    CHECK(strstr(out, "OpenAI-Beta: responses_websockets=2026-02-06\r\n") != NULL);
    CHECK(strstr(out, "deflate") == NULL && strstr(out, "Extensions") == NULL);
    CHECK(strstr(out, "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n") != NULL);
    CHECK(strstr(out, "Connection: close") == NULL);
    /* the agent's own Upgrade/Connection fields are not repeated */
    CHECK(count(out, "Upgrade: websocket") == 1 && count(out, "Connection:") == 1);
}

static int response_check(const char *head, const char **why)
{
    static struct eg_response resp;
    struct eg_refusal rwhy;

    if (parse(WS_HEAD(""), &rwhy) != EG_COMPLETE)
        return -2;
    if (eg_response_parse(head, strlen(head), 16384, &resp) != EG_COMPLETE)
        return -2;
    return eg_ws_response_check(&req, &resp, why);
}

TEST(the_upstreams_101_must_answer_the_key)
{
    const char *why = NULL;

    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n",
                         &why) == 0);
    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOX=\r\n"
                         "\r\n",
                         &why) == -1);
    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\n\r\n",
                         &why) == -1);
    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n\r\n",
                         &why) == -1);
    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Sec-WebSocket-Accept: " ACCEPT "\r\n\r\n",
                         &why) == -1);
    CHECK(response_check("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                         "Connection: Upgrade\r\nSec-WebSocket-Accept: " ACCEPT "\r\n"
                         "Sec-WebSocket-Extensions: permessage-deflate\r\n\r\n",
                         &why) == -1);
    CHECK(why != NULL && strstr(why, "extension") != NULL);
}

TEST(the_101_head_for_the_agent_keeps_the_upgrade)
{
    static struct eg_response resp;
    const char *in = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSet-Cookie: a=b\r\nSec-WebSocket-Accept: " ACCEPT
                     "\r\n\r\n";
    char out[1024];
    size_t n;

    CHECK(eg_response_parse(in, strlen(in), 16384, &resp) == EG_COMPLETE);
    n = eg_response_rewrite(in, &resp, out, sizeof(out) - 1);
    CHECK(n > 0);
    out[n] = '\0';
    CHECK(strncmp(out, "HTTP/1.1 101 Switching Protocols\r\n", 34) == 0);
    CHECK(strstr(out, "Sec-WebSocket-Accept: " ACCEPT "\r\n") != NULL);
    CHECK(strstr(out, "Set-Cookie") == NULL);
    CHECK(strstr(out, "Connection: close") == NULL);
    CHECK(strstr(out, "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n") != NULL);
}

/* A client frame: FIN/opcode byte, masked, payload length n (the payload
 * bytes themselves are not looked at). Returns the header length. */
static size_t frame(unsigned char *out, unsigned first, uint64_t n)
{
    size_t at = 0;

    out[at++] = (unsigned char)first;
    if (n < 126) {
        out[at++] = (unsigned char)(0x80 | n);
    } else if (n < 65536) {
        out[at++] = 0x80 | 126;
        out[at++] = (unsigned char)(n >> 8);
        out[at++] = (unsigned char)n;
    } else {
        out[at++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            out[at++] = (unsigned char)(n >> (8 * i));
    }
    memcpy(out + at, "\x01\x02\x03\x04", 4);
    return at + 4;
}

static int feed_frame(struct eg_ws_meter *m, unsigned first, uint64_t n, uint64_t max)
{
    unsigned char buf[256];
    const char *why = NULL;
    size_t h = frame(buf, first, n);

    if (eg_ws_meter_feed(m, (char *)buf, h, max, &why) < 0)
        return -1;
    memset(buf, 'x', sizeof(buf));
    while (n > 0) {
        size_t take = n < sizeof(buf) ? (size_t)n : sizeof(buf);
        if (eg_ws_meter_feed(m, (char *)buf, take, max, &why) < 0)
            return -1;
        n -= take;
    }
    return 0;
}

TEST(the_meter_follows_frames_split_anywhere)
{
    struct eg_ws_meter m = {0};
    unsigned char buf[64];
    const char *why = NULL;
    size_t h = frame(buf, 0x81, 300);

    /* a header one byte at a time, then its payload */
    for (size_t i = 0; i < h; i++)
        CHECK(eg_ws_meter_feed(&m, (char *)buf + i, 1, 1000, &why) == 0);
    for (int i = 0; i < 300; i++)
        CHECK(eg_ws_meter_feed(&m, "y", 1, 1000, &why) == 0);
    CHECK(m.messages == 1 && !m.in_frame);
    /* fragments with a ping between them; an empty frame; 64-bit length */
    CHECK(feed_frame(&m, 0x01, 10, 1000) == 0);
    CHECK(feed_frame(&m, 0x89, 4, 1000) == 0);
    CHECK(feed_frame(&m, 0x80, 10, 1000) == 0);
    CHECK(feed_frame(&m, 0x82, 0, 1000) == 0);
    CHECK(feed_frame(&m, 0x82, 70000, 100000) == 0);
    CHECK(m.messages == 4);
}

TEST(the_meter_cuts_a_message_over_the_cap)
{
    struct eg_ws_meter m = {0};

    CHECK(feed_frame(&m, 0x81, 1000, 1000) == 0);
    CHECK(feed_frame(&m, 0x81, 1001, 1000) == -1);
    /* the cap is for the whole message, not each fragment */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x01, 600, 1000) == 0);
    CHECK(feed_frame(&m, 0x00, 400, 1000) == 0);
    CHECK(feed_frame(&m, 0x80, 1, 1000) == -1);
}

TEST(the_meter_refuses_what_no_client_may_send)
{
    struct eg_ws_meter m = {0};
    const char *why = NULL;
    unsigned char unmasked[] = {0x81, 0x02, 'h', 'i'};
    unsigned char huge[14] = {0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4};

    CHECK(eg_ws_meter_feed(&m, (char *)unmasked, sizeof(unmasked), 1000, &why) == -1);
    CHECK(why != NULL && strstr(why, "unmasked") != NULL);
    m = (struct eg_ws_meter){0};
    CHECK(eg_ws_meter_feed(&m, (char *)huge, sizeof(huge), UINT64_MAX, &why) == -1);
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0xc1, 1, 1000) == -1); /* RSV1: compressed */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x83, 1, 1000) == -1); /* reserved opcode */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x80, 1, 1000) == -1); /* continuation of nothing */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x01, 1, 1000) == 0);
    CHECK(feed_frame(&m, 0x81, 1, 1000) == -1); /* new message inside one */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x09, 1, 1000) == -1); /* fragmented ping */
    m = (struct eg_ws_meter){0};
    CHECK(feed_frame(&m, 0x89, 126, 1000) == -1); /* control frame too long */
}
