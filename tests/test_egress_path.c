/* The path rules of egress/http_path.c: the allowlist and every spelling of
 * a dot segment. */
#include <string.h>

#include "egress/http.h"
#include "tests/tap.h"

static int status_for(const char *target, const char *const *allow, size_t n)
{
    struct rr_strv sv = {(char **)allow, n};
    struct eg_refusal why = {0};

    if (eg_target_check((struct eg_slice){target, strlen(target)}, &sv, &why) == 0)
        return 0;
    return why.status;
}

static const char *const v1[] = {"/v1/"};

static int check(const char *target)
{
    return status_for(target, v1, 1);
}

TEST(allows_the_prefix_and_below)
{
    CHECK(check("/v1/messages") == 0);
    CHECK(check("/v1/messages?beta=true&x=%2e%2e") == 0);
    CHECK(check("/v1/") == 0);
    CHECK(check("/v1/models/claude-x.y") == 0);
    CHECK(check("/v1/messages/") == 0);
    /* percent-decoding of ordinary bytes is judged on the decoded path */
    CHECK(check("/%76%31/messages") == 0);
}

TEST(refuses_paths_outside_the_allowlist_with_404)
{
    CHECK(check("/") == 404);
    CHECK(check("/v1") == 404);
    CHECK(check("/v2/messages") == 404);
    CHECK(check("/admin") == 404);
    CHECK(check("/V1/messages") == 404);
    CHECK(check("/v1x/") == 404);
    CHECK(check("/%76%32/messages") == 404);
}

TEST(prefix_without_slash_matches_at_a_segment_boundary)
{
    static const char *const allow[] = {"/v1/messages"};
    CHECK(status_for("/v1/messages", allow, 1) == 0);
    CHECK(status_for("/v1/messages?stream=1", allow, 1) == 0);
    CHECK(status_for("/v1/messages/count_tokens", allow, 1) == 0);
    CHECK(status_for("/v1/messagesX", allow, 1) == 404);
    CHECK(status_for("/v1/models", allow, 1) == 404);
}

TEST(several_prefixes)
{
    static const char *const allow[] = {"/v1/messages", "/v1/models/"};
    CHECK(status_for("/v1/models/x", allow, 2) == 0);
    CHECK(status_for("/v1/messages", allow, 2) == 0);
    CHECK(status_for("/v1/files", allow, 2) == 404);
    CHECK(status_for("/v1/messages", allow, 0) == 404);
}

TEST(refuses_dot_segments_in_every_spelling)
{
    static const char *const bad[] = {
        "/v1/../admin",        "/v1/..",           "/v1/./messages",     "/v1/.",
        "/v1/%2e%2e/admin",    "/v1/%2E%2e/admin", "/v1/%2e%2E/admin",   "/v1/.%2e/admin",
        "/v1/%2e./admin",      "/v1/%2e/messages", "/v1/%2E",            "/v1/..;/admin",
        "/v1/..;x=y/admin",    "/v1/.;/messages",  "/v1/%2e%2e;/admin",  "/v1/.../admin",
        "/v1/messages/../../", "/../v1/messages",  "/./v1/messages",     "/v1/a/..",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (!CHECK(check(bad[i]) == 400))
            tap_note("not refused: %s", bad[i]);
}

TEST(refuses_backslashes_raw_and_encoded)
{
    CHECK(check("/v1/..\\admin") == 400);
    CHECK(check("/v1\\..\\admin") == 400);
    CHECK(check("/v1/%5c../admin") == 400);
    CHECK(check("/v1/%5C") == 400);
    CHECK(check("/v1/messages\\") == 400);
}

TEST(refuses_encoded_separators_and_double_encoding)
{
    CHECK(check("/v1%2f..%2fadmin") == 400);
    CHECK(check("/v1/%2F") == 400);
    CHECK(check("/v1/%252e%252e/admin") == 400);
    CHECK(check("/v1/%25") == 400);
}

TEST(refuses_malformed_escapes_and_odd_bytes)
{
    CHECK(check("/v1/%") == 400);
    CHECK(check("/v1/%2") == 400);
    CHECK(check("/v1/%zz") == 400);
    CHECK(check("/v1/%00") == 400);
    CHECK(check("/v1/%0a") == 400);
    CHECK(check("/v1/%20") == 400);
    CHECK(check("/v1/%7f") == 400);
    /* overlong UTF-8 for '.' (0xc0 0xae) and any non-ASCII */
    CHECK(check("/v1/%c0%ae%c0%ae/admin") == 400);
    CHECK(check("/v1/%c3%a9") == 400);
}

TEST(refuses_empty_segments)
{
    CHECK(check("//v1/messages") == 400);
    CHECK(check("/v1//messages") == 400);
    CHECK(check("/v1/;/messages") == 400);
    CHECK(check("v1/messages") == 400);
}

TEST(target_path_stops_at_the_query)
{
    struct eg_slice t = {"/v1/messages?key=secret", 23};
    struct eg_slice p = eg_target_path(t);
    CHECK(p.n == 12 && memcmp(p.p, "/v1/messages", 12) == 0);
    t.n = 12;
    CHECK(eg_target_path(t).n == 12);
    /* the log asks for the path of a request refused before it had one */
    CHECK(eg_target_path((struct eg_slice){NULL, 0}).n == 0);
}
