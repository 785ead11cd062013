/* HTTP/1.1 as the broker speaks it: pure functions over byte buffers, no
 * syscalls, so that every rule below is pinned by a unit test
 * (tests/test_egress_*.c).
 *
 * The request side is deliberately narrower than RFC 9112: anything a
 * front-end and a back-end could read two ways (request smuggling), any
 * spelling of a dot segment, and any form other than origin-form is refused
 * rather than repaired. The agent is the only client, so strictness costs
 * nothing a real SDK sends. */
#ifndef REVRUN_EGRESS_HTTP_H
#define REVRUN_EGRESS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bundle/config.h"

/* Why a request was refused: the status the agent gets and a short reason
 * of our own wording (never agent text), for the reply body and the log. */
struct eg_refusal {
    int status;
    const char *reason;
};

#define EG_HEADERS_MAX 128

struct eg_limits {
    size_t max_head;     /* request line + headers + blank line; over it: 431 */
    size_t max_target;   /* request-target bytes; over it: 414 */
    size_t max_headers;  /* header fields, <= EG_HEADERS_MAX; over it: 431 */
    uint64_t max_body;   /* request body bytes (decoded chunk data); over it: 413 */
};

/* 16 KiB of head, 8 KiB of target, 100 fields, 32 MiB of body (the model
 * APIs' own request cap is of that order). */
void eg_limits_default(struct eg_limits *lim);

struct eg_slice {
    const char *p;
    size_t n;
};

struct eg_header {
    struct eg_slice name;
    struct eg_slice value; /* optional whitespace trimmed */
};

enum eg_body { EG_BODY_NONE, EG_BODY_LENGTH, EG_BODY_CHUNKED };

/* A parsed request head. Slices point into the caller's buffer. */
struct eg_request {
    struct eg_slice method;
    struct eg_slice target;
    int minor; /* HTTP/1.<minor>: 0 or 1 */
    struct eg_header headers[EG_HEADERS_MAX];
    size_t n_headers;
    size_t head_len; /* bytes up to and including the blank line */
    enum eg_body body;
    uint64_t content_length;
    bool expect_continue;
    bool websocket; /* a valid WebSocket upgrade (see eg_upgrade_check) */
};

enum { EG_REFUSED = -1, EG_NEED_MORE = 0, EG_COMPLETE = 1 };

/* Parse the head at the start of buf[0..len). EG_NEED_MORE while the blank
 * line has not arrived (and the head is still under the cap); EG_COMPLETE
 * with *req filled; EG_REFUSED with *why filled. Checks the request line
 * (origin-form only, no CONNECT/TRACE), every header line (no obs-fold, no
 * space before the colon, no bare CR or LF, no control bytes) and the body
 * framing (no CL+TE, no duplicate CL, TE exactly "chunked"). It does not
 * judge the path: see eg_target_check. */
int eg_request_parse(const char *buf, size_t len, const struct eg_limits *lim,
                     struct eg_request *req, struct eg_refusal *why);

/* ---- WebSocket upgrades (RFC 6455), egress/http_upgrade.c ---- *
 *
 * The one upgrade the broker carries is a WebSocket to an allowed path: its
 * handshake is judged and rewritten like any request (credential injected),
 * the upstream's 101 is checked, then bytes move both ways untouched, the
 * agent's frames metered and the upstream's through the echo guard. Every
 * other upgrade is refused by the broker itself, before anything reaches
 * the upstream. eg_request_parse calls this: a request with an Upgrade
 * field is either a valid WebSocket handshake (req->websocket) or refused:
 * 501 for another protocol (h2c, TLS, ...), 400 for a malformed handshake
 * (not GET over HTTP/1.1, a body, no "Connection: upgrade", a version other
 * than 13, a key that is not 16 bytes of base64). Sec-WebSocket-* fields
 * without an upgrade are refused too (400): nothing half of a handshake is
 * forwarded as a plain request. */
struct eg_request;
struct eg_response;
int eg_upgrade_check(struct eg_request *req, struct eg_refusal *why);

/* The upstream's 101 to a WebSocket handshake: "Upgrade: websocket",
 * "Connection: upgrade", the Sec-WebSocket-Accept that the key asks for,
 * and no extension (none was offered: permessage-deflate would hide the
 * bytes from the echo guard). 0, or -1 with a static reason. */
int eg_ws_response_check(const struct eg_request *req, const struct eg_response *resp,
                         const char **why);

/* The agent's frames, counted as they stream through unchanged: masked (as
 * RFC 6455 requires of a client), no RSV bit (no extension), known opcodes,
 * control frames whole and at most 125 bytes, continuations only inside a
 * message, 64-bit lengths with the top bit clear, and no message (data
 * frames of one message added up) over max_msg. */
struct eg_ws_meter {
    unsigned char hdr[14];
    unsigned hdr_len;
    uint64_t payload_left; /* of the current frame */
    uint64_t msg_total;    /* payload bytes of the current message */
    bool in_frame;
    bool in_message; /* a non-final data frame was seen */
    uint64_t messages; /* complete data messages, for the log */
};

/* Consume buf[0..len): 0, or -1 with *why (a 1009/1002-class reason). */
int eg_ws_meter_feed(struct eg_ws_meter *m, const char *buf, size_t len, uint64_t max_msg,
                     const char **why);

/* Judge a request-target (already known to be origin-form): the path,
 * percent-decoded once, must be printable ASCII with no dot segment (".",
 * "..", also as "%2e", with a ";param", or before a backslash), no
 * backslash, no encoded "/" or "%" (a second decoding upstream), no empty
 * segment; and it must start with one of the allowed prefixes at a segment
 * boundary. 0, or -1 with *why (400 for a malformed path, 404 for one
 * outside the allowlist). */
int eg_target_check(struct eg_slice target, const struct rr_strv *allow, struct eg_refusal *why);

/* The path part of a target (up to '?'): what the log shows. */
struct eg_slice eg_target_path(struct eg_slice target);

/* Case-insensitive comparison of a slice with a NUL-terminated name. */
bool eg_slice_ieq(struct eg_slice s, const char *name);
/* The same, an '_' in s also matching a '-' in name: upstreams in the
 * CGI/WSGI tradition fold x_api_key into X-Api-Key. */
bool eg_slice_ieq_fold(struct eg_slice s, const char *name);

/* The one header of that name, or NULL (the first if there are several). */
const struct eg_header *eg_request_header(const struct eg_request *req, const char *name);

/* Header names the broker never forwards from the agent: credentials
 * (x-api-key, authorization, proxy-authorization, cookie, and the configured
 * header) and hop-by-hop fields it sets itself. */
bool eg_header_is_stripped(struct eg_slice name, const char *cred_header);

/* What the broker injects and where it sends the request. */
struct eg_forward {
    const char *host_header;   /* "api.example.com" or "host:port" */
    const char *cred_header;   /* e.g. "x-api-key" */
    const char *cred_prefix;   /* e.g. "Bearer ", or "" */
    const char *secret;
    size_t secret_len;
};

/* Write the head to send upstream into out[0..cap): the request line as
 * received (HTTP/1.1), Host set to the upstream, every agent header except
 * the stripped ones, the credential, "Accept-Encoding: identity" (so the
 * echo guard sees plain bytes) and "Connection: close". A WebSocket
 * handshake keeps its Sec-WebSocket-Key/-Version/-Protocol fields, loses
 * Sec-WebSocket-Extensions, and ends "Upgrade: websocket" and
 * "Connection: Upgrade". Returns the length, or 0 if it does not fit. */
size_t eg_request_rewrite(const struct eg_request *req, const struct eg_forward *fw, char *out,
                          size_t cap);

/* Chunked request bodies are validated as they stream and forwarded
 * verbatim: chunk sizes in hex (at most 16 digits, no sign, no extension),
 * CRLF exactly, and an empty trailer section (a trailer could carry a
 * credential field past the stripping). */
struct eg_chunked {
    int state;
    uint64_t remaining; /* data bytes left in the current chunk */
    uint64_t size;      /* size being read */
    unsigned digits;
    uint64_t total; /* data bytes so far */
};

/* Consume buf[0..len). EG_COMPLETE when the last chunk and the final CRLF
 * were seen (*used = bytes of buf that belong to the body); EG_NEED_MORE
 * when all of buf was body (*used = len); EG_REFUSED with *why. */
int eg_chunked_feed(struct eg_chunked *c, const char *buf, size_t len, uint64_t max_body,
                    size_t *used, struct eg_refusal *why);

/* An upstream response head. */
struct eg_response {
    int status;
    struct eg_header headers[EG_HEADERS_MAX];
    size_t n_headers;
    size_t head_len;
};

/* EG_NEED_MORE, EG_COMPLETE or EG_REFUSED (malformed, or over max_head). */
int eg_response_parse(const char *buf, size_t len, size_t max_head, struct eg_response *resp);

/* The head for the agent: the status line as received, every header but
 * the hop-by-hop ones and Set-Cookie, then "Connection: close" (for a 101:
 * "Upgrade: websocket" and "Connection: Upgrade"). Returns the length, or
 * 0 if it does not fit. */
size_t eg_response_rewrite(const char *buf, const struct eg_response *resp, char *out, size_t cap);

/* A complete local reply (no upstream involved) with a one-line text body
 * and "Connection: close". Returns the length (truncated to cap). */
size_t eg_local_reply(int status, const char *text, char *out, size_t cap);

/* Reason phrase for the statuses the broker produces itself. */
const char *eg_status_text(int status);

/* Echo guard: the secret must not reach the agent even if the upstream
 * reflects request headers back. The caller streams upstream bytes through
 * a work buffer: pending bytes first (a tail that could be the start of the
 * secret), then the new bytes. eg_guard_scan returns -1 if the secret is in
 * work[0..len); otherwise 0 and *send = how many leading bytes may go to the
 * agent now. The rest (the longest tail that is a prefix of the secret, so
 * never more than secret_len - 1 bytes) is held until more data shows
 * whether it completes the secret; an event ending in "\n\n" is never held. */
int eg_guard_scan(const char *secret, size_t secret_len, const char *work, size_t len,
                  size_t *send);

/* RFC 9110 token characters (header names, methods). */
bool eg_is_tchar(unsigned char c);

/* A header field value: visible ASCII, space and tab, obs-text; no CTL. */
bool eg_is_field_value(const char *s, size_t n);

#endif
