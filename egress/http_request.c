/* The request head: request line, fields, and body framing. */
#include <string.h>

#include "egress/http_head.h"

void eg_limits_default(struct eg_limits *lim)
{
    lim->max_head = 16 * 1024;
    lim->max_target = 8 * 1024;
    lim->max_headers = 100;
    lim->max_body = 32ull * 1024 * 1024;
}

/* Methods a model API uses. CONNECT would make the broker a tunnel and
 * TRACE reflects the request, injected credential included, back to the
 * agent; anything unknown is refused with them. */
static bool method_allowed(struct eg_slice m)
{
    static const char *const ok[] = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        if (m.n == strlen(ok[i]) && memcmp(m.p, ok[i], m.n) == 0)
            return true;
    return false;
}

static int parse_target(struct eg_slice t, const struct eg_limits *lim, struct eg_refusal *why)
{
    if (t.n > lim->max_target)
        return eg_refuse(why, 414, "request target too long");
    for (size_t i = 0; i < t.n; i++) {
        unsigned char c = (unsigned char)t.p[i];
        if (c <= 0x20 || c >= 0x7f)
            return eg_refuse(why, 400, "invalid byte in request target");
    }
    if (t.n == 1 && t.p[0] == '*')
        return eg_refuse(why, 400, "asterisk-form request target");
    if (t.n == 0 || t.p[0] != '/')
        return eg_refuse(why, 400, "absolute-form or authority-form request target");
    if (memchr(t.p, '#', t.n) != NULL)
        return eg_refuse(why, 400, "fragment in request target");
    return 0;
}

static int parse_version(struct eg_slice v, struct eg_request *req, struct eg_refusal *why)
{
    if (v.n == 8 && memcmp(v.p, "HTTP/1.", 7) == 0 && (v.p[7] == '0' || v.p[7] == '1')) {
        req->minor = v.p[7] - '0';
        return 0;
    }
    if (v.n >= 5 && memcmp(v.p, "HTTP/", 5) == 0 && memchr(v.p, ' ', v.n) == NULL)
        return eg_refuse(why, 505, "HTTP version not supported");
    return eg_refuse(why, 400, "malformed request line");
}

/* method SP request-target SP HTTP-version, single spaces exactly. */
static int parse_request_line(const char *line, size_t n, const struct eg_limits *lim,
                              struct eg_request *req, struct eg_refusal *why)
{
    const char *sp1 = memchr(line, ' ', n);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', n - (size_t)(sp1 + 1 - line)) : NULL;

    if (sp1 == NULL || sp2 == NULL || sp1 == line)
        return eg_refuse(why, 400, "malformed request line");
    req->method = (struct eg_slice){line, (size_t)(sp1 - line)};
    req->target = (struct eg_slice){sp1 + 1, (size_t)(sp2 - sp1 - 1)};
    for (size_t i = 0; i < req->method.n; i++)
        if (!eg_is_tchar((unsigned char)line[i]))
            return eg_refuse(why, 400, "malformed request line");
    if (parse_version((struct eg_slice){sp2 + 1, n - (size_t)(sp2 + 1 - line)}, req, why) < 0)
        return EG_REFUSED;
    if (!method_allowed(req->method))
        return eg_refuse(why, 405, "method not allowed");
    return parse_target(req->target, lim, why);
}

static bool parse_length(struct eg_slice v, uint64_t *out)
{
    uint64_t x = 0;

    if (v.n == 0 || v.n > 19)
        return false;
    for (size_t i = 0; i < v.n; i++) {
        if (v.p[i] < '0' || v.p[i] > '9')
            return false;
        x = x * 10 + (uint64_t)(v.p[i] - '0');
    }
    *out = x;
    return true;
}

static size_t count_fields(const struct eg_request *req, const char *name)
{
    size_t n = 0;

    for (size_t i = 0; i < req->n_headers; i++)
        n += eg_slice_ieq(req->headers[i].name, name);
    return n;
}

/* The request-smuggling shapes: a body length that a front-end and a
 * back-end could each compute differently is refused, never chosen. */
static int parse_framing(struct eg_request *req, const struct eg_limits *lim,
                         struct eg_refusal *why)
{
    size_t n_cl = count_fields(req, "content-length");
    size_t n_te = count_fields(req, "transfer-encoding");

    req->body = EG_BODY_NONE;
    /* Content_Length, Transfer_Encoding: the broker frames by the dashed
     * field, an upstream folding '_' into '-' by this one: two lengths. */
    for (size_t i = 0; i < req->n_headers; i++)
        if (memchr(req->headers[i].name.p, '_', req->headers[i].name.n) != NULL &&
            (eg_slice_ieq_fold(req->headers[i].name, "content-length") ||
             eg_slice_ieq_fold(req->headers[i].name, "transfer-encoding")))
            return eg_refuse(why, 400, "an underscore spelling of a framing field");
    if (n_cl > 0 && n_te > 0)
        return eg_refuse(why, 400, "both Content-Length and Transfer-Encoding");
    if (n_cl > 1)
        return eg_refuse(why, 400, "duplicate Content-Length");
    if (n_te > 1)
        return eg_refuse(why, 400, "duplicate Transfer-Encoding");
    if (n_te == 1) {
        if (req->minor == 0)
            return eg_refuse(why, 400, "Transfer-Encoding in HTTP/1.0");
        if (!eg_slice_ieq(eg_request_header(req, "transfer-encoding")->value, "chunked"))
            return eg_refuse(why, 400, "Transfer-Encoding other than chunked");
        req->body = EG_BODY_CHUNKED;
    }
    if (n_cl == 1) {
        if (!parse_length(eg_request_header(req, "content-length")->value, &req->content_length))
            return eg_refuse(why, 400, "malformed Content-Length");
        if (req->content_length > lim->max_body)
            return eg_refuse(why, 413, "request body too large");
        req->body = req->content_length > 0 ? EG_BODY_LENGTH : EG_BODY_NONE;
    }
    return 0;
}

static int check_fields(struct eg_request *req, struct eg_refusal *why)
{
    const struct eg_header *expect = eg_request_header(req, "expect");
    size_t n_host = count_fields(req, "host");

    if (n_host > 1 || (req->minor == 1 && n_host == 0))
        return eg_refuse(why, 400, "missing or duplicate Host");
    req->expect_continue = false;
    if (expect != NULL) {
        if (count_fields(req, "expect") > 1 || !eg_slice_ieq(expect->value, "100-continue"))
            return eg_refuse(why, 417, "unsupported Expect");
        req->expect_continue = true;
    }
    return 0;
}

static int fields_refusal(int r, struct eg_refusal *why)
{
    if (r == EG_FIELDS_TOO_BIG)
        return eg_refuse(why, 431, "request head too large");
    if (r == EG_FIELDS_TOO_MANY)
        return eg_refuse(why, 431, "too many header fields");
    return eg_refuse(why, 400, "malformed header field");
}

int eg_request_parse(const char *buf, size_t len, const struct eg_limits *lim,
                     struct eg_request *req, struct eg_refusal *why)
{
    size_t line_len = 0, next = 0;
    size_t max_fields = lim->max_headers < EG_HEADERS_MAX ? lim->max_headers : EG_HEADERS_MAX;
    int r = eg_next_line(buf, len, 0, &line_len, &next);

    if (r == EG_REFUSED)
        return eg_refuse(why, 400, "bare CR or LF in request line");
    if (r == EG_NEED_MORE) {
        if (len > lim->max_target + 32 || len >= lim->max_head)
            return eg_refuse(why, len > lim->max_target ? 414 : 431, "request line too long");
        return EG_NEED_MORE;
    }
    if (parse_request_line(buf, line_len, lim, req, why) < 0)
        return EG_REFUSED;
    r = eg_parse_fields(buf, len, next, lim->max_head, max_fields, req->headers, &req->n_headers,
                        &req->head_len);
    if (r == EG_NEED_MORE)
        return EG_NEED_MORE;
    if (r != EG_COMPLETE)
        return fields_refusal(r, why);
    if (check_fields(req, why) < 0 || parse_framing(req, lim, why) < 0 ||
        eg_upgrade_check(req, why) < 0)
        return EG_REFUSED;
    return EG_COMPLETE;
}

const struct eg_header *eg_request_header(const struct eg_request *req, const char *name)
{
    for (size_t i = 0; i < req->n_headers; i++)
        if (eg_slice_ieq(req->headers[i].name, name))
            return &req->headers[i];
    return NULL;
}
