/* What crosses the broker: credential stripping and injection, the response
 * head rewrite, local replies, and the echo guard. */
#include <stdio.h>
#include <string.h>

#include "egress/http.h"
#include "tests/tap.h"

static const char secret[] = "sk-REAL-0123456789abcdef";

static size_t rewrite(const char *in, char *out, size_t cap, const char *header,
                      const char *prefix)
{
    struct eg_limits lim;
    struct eg_request req;
    struct eg_refusal why;
    struct eg_forward fw = {"api.example.com", header, prefix, secret, strlen(secret)};

    eg_limits_default(&lim);
    if (eg_request_parse(in, strlen(in), &lim, &req, &why) != EG_COMPLETE)
        return (size_t)-1;
    size_t n = eg_request_rewrite(&req, &fw, out, cap);
    if (n > 0 && n < cap)
        out[n] = '\0';
    return n;
}

TEST(strips_every_credential_and_injects_the_real_one)
{
    char out[4096];
    const char *in = "POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
                     "X-Api-Key: dummy1\r\nauthorization: Bearer dummy2\r\n"
                     "Proxy-Authorization: Basic dummy3\r\nCOOKIE: s=dummy4\r\n"
                     "anthropic-version: 2023-06-01\r\nContent-Length: 2\r\n\r\n";

    CHECK(rewrite(in, out, sizeof(out), "x-api-key", "") > 0);
    CHECK(strncmp(out, "POST /v1/messages HTTP/1.1\r\nHost: api.example.com\r\n", 51) == 0);
    CHECK(strstr(out, "dummy") == NULL);
    CHECK(strstr(out, "127.0.0.1") == NULL);
    CHECK(strstr(out, "x-api-key: sk-REAL-0123456789abcdef\r\n") != NULL);
    CHECK(strstr(out, "anthropic-version: 2023-06-01\r\n") != NULL);
    CHECK(strstr(out, "Content-Length: 2\r\n") != NULL);
    CHECK(strstr(out, "Connection: close\r\n\r\n") != NULL);
    CHECK(strstr(out, "Accept-Encoding: identity\r\n") != NULL);
}

TEST(strips_the_configured_header_and_uses_the_prefix)
{
    char out[4096];
    const char *in = "GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Goog-Api-Key: dummy\r\n"
                     "Connection: keep-alive, x-goog-api-key\r\nKeep-Alive: 5\r\nTE: trailers\r\n"
                     "Proxy-Foo: dummy\r\nForwarded: for=dummy\r\n"
                     "Accept-Encoding: gzip\r\n\r\n";

    CHECK(rewrite(in, out, sizeof(out), "x-goog-api-key", "Token ") > 0);
    CHECK(strstr(out, "dummy") == NULL);
    CHECK(strstr(out, "keep-alive") == NULL && strstr(out, "Keep-Alive") == NULL);
    CHECK(strstr(out, "trailers") == NULL);
    CHECK(strstr(out, "gzip") == NULL);
    CHECK(strstr(out, "x-goog-api-key: Token sk-REAL-0123456789abcdef\r\n") != NULL);
}

TEST(stripped_names_match_in_any_case_and_nothing_else)
{
    static const char *const names[] = {"x-api-key", "X-API-KEY", "Authorization",
                                        "proxy-authorization", "Cookie", "HOST",
                                        "expect", "proxy-anything"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(eg_header_is_stripped((struct eg_slice){names[i], strlen(names[i])}, NULL));
    CHECK(eg_header_is_stripped((struct eg_slice){"My-Key", 6}, "my-key"));
    CHECK(!eg_header_is_stripped((struct eg_slice){"x-api-keys", 10}, "x-api-key"));
    CHECK(!eg_header_is_stripped((struct eg_slice){"content-type", 12}, "x-api-key"));
    CHECK(!eg_header_is_stripped((struct eg_slice){"anthropic-beta", 14}, "x-api-key"));
}

TEST(rewrite_reports_overflow)
{
    char out[64];
    CHECK(rewrite("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", out, sizeof(out), "x-api-key",
                  "") == 0);
}

TEST(response_head_parsed_and_rewritten)
{
    const char *in = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                     "Connection: keep-alive\r\nKeep-Alive: timeout=5\r\nSet-Cookie: a=b\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n5\r\nhello";
    struct eg_response resp;
    char out[1024];
    size_t n;

    CHECK(eg_response_parse(in, strlen(in), 4096, &resp) == EG_COMPLETE);
    CHECK(resp.status == 200 && resp.n_headers == 5);
    CHECK(resp.head_len == strlen(in) - strlen("5\r\nhello"));
    n = eg_response_rewrite(in, &resp, out, sizeof(out));
    CHECK(n > 0);
    out[n] = '\0';
    CHECK(strcmp(out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                      "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n") == 0);
}

TEST(response_head_refusals)
{
    struct eg_response resp;
    CHECK(eg_response_parse("HTTP/1.1 200 OK\r\n", 17, 4096, &resp) == EG_NEED_MORE);
    CHECK(eg_response_parse("HTTP/1.1 200 OK\r\n", 17, 10, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/2 200 OK\r\n\r\n", 17, 4096, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/1.1 2x0 OK\r\n\r\n", 19, 4096, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/1.1 200 OK\nA: b\r\n\r\n", 24, 4096, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/1.1 200 OK\r\n b\r\n\r\n", 23, 4096, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/1.1 099 OK\r\n\r\n", 19, 4096, &resp) == EG_REFUSED);
    CHECK(eg_response_parse("HTTP/1.0 404 \r\n\r\n", 17, 4096, &resp) == EG_COMPLETE);
    CHECK(resp.status == 404);
}

TEST(local_reply_is_complete_and_closes)
{
    char out[512];
    size_t n = eg_local_reply(404, "path not allowed", out, sizeof(out));
    out[n] = '\0';
    CHECK(strcmp(out, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
                      "Content-Length: 17\r\nConnection: close\r\n\r\npath not allowed\n") == 0);
    CHECK(strcmp(eg_status_text(431), "Request Header Fields Too Large") == 0);
}

TEST(guard_refuses_the_secret_anywhere)
{
    char buf[256];
    size_t send;

    snprintf(buf, sizeof(buf), "{\"echo\":\"%s\"}", secret);
    CHECK(eg_guard_scan(secret, strlen(secret), buf, strlen(buf), &send) == -1);
    CHECK(eg_guard_scan(secret, strlen(secret), secret, strlen(secret), &send) == -1);
}

TEST(guard_holds_only_a_possible_start_of_the_secret)
{
    char buf[256];
    size_t send;
    size_t s = strlen(secret);

    /* an SSE event is sent whole: nothing in it can start the secret */
    CHECK(eg_guard_scan(secret, s, "data: {}\n\n", 10, &send) == 0 && send == 10);
    /* a tail that could be the secret's start is held back... */
    snprintf(buf, sizeof(buf), "xyz%.10s", secret);
    CHECK(eg_guard_scan(secret, s, buf, strlen(buf), &send) == 0 && send == 3);
    /* ...and found when the rest arrives with it */
    snprintf(buf, sizeof(buf), "%.10s%s!", secret, secret + 10);
    CHECK(eg_guard_scan(secret, s, buf, strlen(buf), &send) == -1);
    /* a near miss is not held */
    snprintf(buf, sizeof(buf), "%.10sX", secret);
    CHECK(eg_guard_scan(secret, s, buf, strlen(buf), &send) == 0 && send == strlen(buf));
    /* everything but one byte of the secret: held whole, never more */
    snprintf(buf, sizeof(buf), "ab%.*s", (int)s - 1, secret);
    CHECK(eg_guard_scan(secret, s, buf, strlen(buf), &send) == 0 && send == 2);
    CHECK(eg_guard_scan(secret, s, "", 0, &send) == 0 && send == 0);
}

/* Upstreams in the CGI/WSGI tradition read x_api_key as X-Api-Key: the
 * underscore spellings of every stripped field are stripped too. */
TEST(underscore_spellings_of_stripped_fields_are_stripped)
{
    static const char *const names[] = {"x_api_key", "X_Api-Key", "proxy_authorization",
                                        "Proxy_Anything", "keep_alive", "accept_encoding"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        CHECK(eg_header_is_stripped((struct eg_slice){names[i], strlen(names[i])}, NULL));
    CHECK(eg_header_is_stripped((struct eg_slice){"my_key", 6}, "my-key"));
    CHECK(!eg_header_is_stripped((struct eg_slice){"x_api_keys", 10}, "x-api-key"));
    CHECK(!eg_header_is_stripped((struct eg_slice){"anthropic_beta", 14}, "x-api-key"));
}
