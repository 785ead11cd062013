/* What crosses the broker: the agent's head with its credentials removed
 * and the operator's injected; the upstream's head with hop-by-hop fields
 * replaced by "Connection: close"; and the broker's own short replies. */
#include <stdio.h>
#include <string.h>

#include "egress/http_head.h"

/* Every spelling of a credential the agent could send is dropped whatever
 * its case: the agent's dummy key must never reach the upstream beside (or
 * instead of) the real one. The hop-by-hop fields are the broker's to set;
 * honouring "Connection: <name>" would let the agent have a field removed
 * downstream, so its tokens are ignored and the field dropped. */
static const char *const stripped[] = {
    "x-api-key",  "authorization",    "proxy-authorization", "cookie",  "host",
    "connection", "proxy-connection", "keep-alive",          "te",      "trailer",
    "upgrade",    "expect",           "accept-encoding",     "forwarded",
};

/* Compression would hide the bytes from the echo guard. */
static bool ws_stripped(struct eg_slice name)
{
    return eg_slice_ieq(name, "sec-websocket-extensions");
}

/* Underscore spellings too (x_api_key, Proxy_Authorization): an upstream
 * that folds '_' into '-' would take them for the field itself. */
bool eg_header_is_stripped(struct eg_slice name, const char *cred_header)
{
    if (cred_header != NULL && eg_slice_ieq_fold(name, cred_header))
        return true;
    if (name.n >= 6 && eg_slice_ieq_fold((struct eg_slice){name.p, 6}, "proxy-"))
        return true;
    for (size_t i = 0; i < sizeof(stripped) / sizeof(stripped[0]); i++)
        if (eg_slice_ieq_fold(name, stripped[i]))
            return true;
    return false;
}

size_t eg_request_rewrite(const struct eg_request *req, const struct eg_forward *fw, char *out,
                          size_t cap)
{
    size_t at = 0;

    at = eg_buf_put(out, cap, at, req->method.p, req->method.n);
    at = eg_buf_puts(out, cap, at, " ");
    at = eg_buf_put(out, cap, at, req->target.p, req->target.n);
    at = eg_buf_puts(out, cap, at, " HTTP/1.1\r\nHost: ");
    at = eg_buf_puts(out, cap, at, fw->host_header);
    at = eg_buf_puts(out, cap, at, "\r\n");
    for (size_t i = 0; i < req->n_headers; i++)
        if (!eg_header_is_stripped(req->headers[i].name, fw->cred_header) &&
            !ws_stripped(req->headers[i].name))
            at = eg_buf_field(out, cap, at, &req->headers[i]);
    at = eg_buf_puts(out, cap, at, fw->cred_header);
    at = eg_buf_puts(out, cap, at, ": ");
    at = eg_buf_puts(out, cap, at, fw->cred_prefix);
    at = eg_buf_put(out, cap, at, fw->secret, fw->secret_len);
    if (req->websocket)
        at = eg_buf_puts(out, cap, at, "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    else
        at = eg_buf_puts(out, cap, at,
                         "\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n");
    return at < cap ? at : 0;
}

static bool response_field_dropped(struct eg_slice name)
{
    static const char *const names[] = {"connection", "proxy-connection", "keep-alive",
                                        "upgrade", "set-cookie", "sec-websocket-extensions"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (eg_slice_ieq(name, names[i]))
            return true;
    return false;
}

size_t eg_response_rewrite(const char *buf, const struct eg_response *resp, char *out, size_t cap)
{
    const char *eol = memchr(buf, '\r', resp->head_len);
    size_t at = 0;

    if (eol == NULL)
        return 0;
    at = eg_buf_put(out, cap, at, buf, (size_t)(eol - buf));
    at = eg_buf_puts(out, cap, at, "\r\n");
    for (size_t i = 0; i < resp->n_headers; i++)
        if (!response_field_dropped(resp->headers[i].name))
            at = eg_buf_field(out, cap, at, &resp->headers[i]);
    if (resp->status == 101)
        at = eg_buf_puts(out, cap, at, "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
    else
        at = eg_buf_puts(out, cap, at, "Connection: close\r\n\r\n");
    return at < cap ? at : 0;
}

const char *eg_status_text(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Error";
    }
}

size_t eg_local_reply(int status, const char *text, char *out, size_t cap)
{
    int n = snprintf(out, cap,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s\n",
                     status, eg_status_text(status), strlen(text) + 1, text);

    if (n < 0)
        return 0;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}
