/* The request-head rules of egress/http_request.c: each refused shape has a
 * case that passes only while the rule is there. */
#include <stdio.h>
#include <string.h>

#include "egress/http.h"
#include "tests/tap.h"

static struct eg_limits lim;
static struct eg_request req;
static struct eg_refusal why;

static int parse(const char *s)
{
    if (lim.max_head == 0)
        eg_limits_default(&lim);
    why = (struct eg_refusal){0};
    return eg_request_parse(s, strlen(s), &lim, &req, &why);
}

/* The status a complete-but-refused head gets; 0 when accepted. */
static int status_of(const char *s)
{
    int r = parse(s);
    return r == EG_REFUSED ? why.status : (r == EG_COMPLETE ? 0 : -1);
}

TEST(parses_a_plain_post)
{
    const char *s = "POST /v1/messages?beta=true HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                    "x-api-key:  dummy \r\nContent-Length: 12\r\n\r\n{\"a\":1}";
    CHECK(parse(s) == EG_COMPLETE);
    CHECK(req.method.n == 4 && memcmp(req.method.p, "POST", 4) == 0);
    CHECK(req.target.n == 22 && memcmp(req.target.p, "/v1/messages?beta=true", 22) == 0);
    CHECK(req.minor == 1);
    CHECK(req.n_headers == 3);
    CHECK(req.body == EG_BODY_LENGTH && req.content_length == 12);
    CHECK(req.head_len == strlen(s) - strlen("{\"a\":1}"));
    /* optional whitespace around the value is not part of it */
    CHECK(eg_slice_ieq(eg_request_header(&req, "X-API-KEY")->value, "dummy"));
}

TEST(waits_for_the_blank_line)
{
    CHECK(parse("GET /v1/models HTTP/1.1\r\nHost: x\r\n") == EG_NEED_MORE);
    CHECK(parse("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r") == EG_NEED_MORE);
    CHECK(parse("GET /v1/mod") == EG_NEED_MORE);
    CHECK(parse("GET /v1/models HTTP/1.1\r") == EG_NEED_MORE);
    CHECK(parse("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n") == EG_COMPLETE);
    CHECK(req.body == EG_BODY_NONE);
}

TEST(refuses_connect_and_trace_and_unknown_methods)
{
    CHECK(status_of("CONNECT api.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n") == 405);
    CHECK(status_of("connect /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 405);
    /* TRACE would echo the injected credential back to the agent */
    CHECK(status_of("TRACE /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 405);
    CHECK(status_of("BREW /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 405);
    CHECK(status_of("get /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 405);
    CHECK(status_of("DELETE /v1/x HTTP/1.1\r\nHost: x\r\n\r\n") == 0);
}

TEST(refuses_every_form_but_origin_form)
{
    CHECK(status_of("GET http://api.example.com/v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET https://evil/v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET api.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/x#frag HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
}

TEST(refuses_malformed_request_lines)
{
    CHECK(status_of("GET  /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ x HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/\tHTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1 \r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of(" GET /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("\r\nGET /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/\x7f HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/2.0\r\nHost: x\r\n\r\n") == 505);
    CHECK(status_of("GET /v1/ HTTP/1.2\r\nHost: x\r\n\r\n") == 505);
    CHECK(status_of("GET /v1/ http/1.1\r\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.0\r\n\r\n") == 0);
    CHECK(req.minor == 0);
}

TEST(refuses_bare_cr_and_bare_lf)
{
    CHECK(status_of("GET /v1/ HTTP/1.1\nHost: x\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\n\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n") == 400);
    /* a CR that cannot be the start of CRLF is refused before the LF comes */
    CHECK(parse("GET /v1/ HTTP/1.1\r\nHost: x\rX") == EG_REFUSED);
}

TEST(refuses_obs_fold_and_space_before_colon)
{
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length\t: 5\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nno-colon\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX(y): z\r\n\r\n") == 400);
}

TEST(refuses_control_bytes_in_values)
{
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\x01z\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\x7fz\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\tz\xc3\xa9\r\n\r\n") == 0);
    const char nul[] = "GET /v1/ HTTP/1.1\r\nHost: x\r\nX-A: a\0z\r\n\r\n";
    eg_limits_default(&lim);
    CHECK(eg_request_parse(nul, sizeof(nul) - 1, &lim, &req, &why) == EG_REFUSED);
}

TEST(refuses_smuggling_shapes)
{
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    "Content-Length: 5\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    "Content-Length: 5\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    "content-length: 6\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 5\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0x5\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n"
                    "\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n"
                    "\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n"
                    "\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n") ==
          400);
    CHECK(status_of("POST /v1/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\n\r\n") == 0);
    CHECK(req.body == EG_BODY_CHUNKED);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n") == 0);
    CHECK(req.body == EG_BODY_NONE);
}

TEST(requires_exactly_one_host_in_http11)
{
    CHECK(status_of("GET /v1/ HTTP/1.1\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400);
    CHECK(status_of("GET /v1/ HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n") == 400);
}

TEST(expect_continue_only)
{
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
                    "Content-Length: 3\r\n\r\n") == 0);
    CHECK(req.expect_continue);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n") == 417);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\n\r\n") == 0);
    CHECK(!req.expect_continue);
}

TEST(caps_head_target_fields_and_body)
{
    char big[64 * 1024];

    eg_limits_default(&lim);
    lim.max_head = 256;
    lim.max_target = 64;
    lim.max_headers = 3;
    lim.max_body = 1000;
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n") == 0);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n") == 413);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n") == 0);
    CHECK(status_of("GET /v1/ HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n") == 431);
    /* a head that never ends is refused once it passes the cap */
    snprintf(big, sizeof(big), "GET /v1/ HTTP/1.1\r\nHost: x\r\nA: %0300d", 0);
    CHECK(parse(big) == EG_REFUSED && why.status == 431);
    snprintf(big, sizeof(big), "GET /v1/%0100d HTTP/1.1\r\nHost: x\r\n\r\n", 0);
    CHECK(status_of(big) == 414);
    snprintf(big, sizeof(big), "GET /v1/%0100d", 0);
    CHECK(parse(big) == EG_REFUSED && why.status == 414);
    eg_limits_default(&lim);
    CHECK(lim.max_head == 16384 && lim.max_headers == 100 && lim.max_body == 32u << 20);
}

/* Content_Length / Transfer_Encoding: a second framing an upstream that
 * folds '_' into '-' would honour, so the request is refused. */
TEST(refuses_underscore_spellings_of_framing_fields)
{
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    "Content_Length: 50\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nTransfer_Encoding: chunked\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\ncontent_length: 0\r\n\r\n") == 400);
    CHECK(status_of("POST /v1/ HTTP/1.1\r\nHost: x\r\nX_Custom_Field: 1\r\n\r\n") == 0);
}
