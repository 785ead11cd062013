/* revrun.egress validation, the upstream URL and the credential sources. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "egress/egress.h"
#include "tests/tap.h"

static struct egress_upstream up;
static struct rr_error err;

static int url(const char *u)
{
    return egress_upstream_parse(u, &up, &err);
}

TEST(upstream_url_forms)
{
    CHECK(url("https://api.anthropic.com") == 0);
    CHECK(strcmp(up.host, "api.anthropic.com") == 0 && strcmp(up.port, "443") == 0);
    CHECK(strcmp(up.host_header, "api.anthropic.com") == 0);
    CHECK(url("https://localhost:8443/") == 0);
    CHECK(strcmp(up.host, "localhost") == 0 && strcmp(up.port, "8443") == 0);
    CHECK(strcmp(up.host_header, "localhost:8443") == 0);
    CHECK(url("https://[::1]:9443") == 0);
    CHECK(strcmp(up.host, "::1") == 0 && strcmp(up.host_header, "[::1]:9443") == 0);
}

TEST(upstream_url_refusals)
{
    static const char *const bad[] = {
        "http://api.example.com",    "api.example.com",          "https://",
        "https://a.example/v1",      "https://user@a.example",   "https://a.example?x",
        "https://a.example#f",       "https://a.example:0",      "https://a.example:65536",
        "https://a.example:x",       "https://a.example:",       "https://a_b.example",
        "https://[::1",              "https://a.example:443:1",  "https://a example",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (!CHECK(url(bad[i]) < 0))
            tap_note("accepted: %s", bad[i]);
    CHECK(url(NULL) < 0);
}

static char *base_url_vars[] = {(char *)"ANTHROPIC_BASE_URL", NULL};
static char *bad_url_vars[] = {(char *)"ANTHROPIC_BASE_URL", (char *)"X-Y", NULL};
static char *suffix_vars[] = {(char *)"OPENAI_BASE_URL=/v1", (char *)"B=/a/b/", NULL};
static char *bad_suffixes[][2] = {{(char *)"X=v1", NULL}, {(char *)"X=/a/../b", NULL},
                                 {(char *)"X=/a?b", NULL}, {(char *)"=/v1", NULL},
                                 {(char *)"X=/a%2f", NULL}};

static struct rr_egress good(void)
{
    return (struct rr_egress){
        .mode = RR_EGRESS_BROKER,
        .upstream = (char *)"https://api.anthropic.com",
        .credential_env = (char *)"ANTHROPIC_API_KEY",
        .header = (char *)"x-api-key",
        .port = 8080,
        .base_url_env = {base_url_vars, 1},
    };
}

TEST(config_accepts_none_and_a_plain_broker)
{
    struct rr_egress eg = {.mode = RR_EGRESS_NONE};
    CHECK(egress_config_validate(&eg, RR_NET_HOST, &err) == 0);
    eg = good();
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) == 0);
    eg.credential_env = NULL;
    eg.credential_file = (char *)"/etc/revrun/key";
    eg.header = NULL;
    eg.port = 0;
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) == 0);
}

TEST(config_refuses_broker_with_host_network)
{
    struct rr_egress eg = good();
    CHECK(egress_config_validate(&eg, RR_NET_HOST, &err) < 0);
    CHECK(strstr(err.msg, "host") != NULL);
}

TEST(config_refuses_bad_credential_sources)
{
    struct rr_egress eg = good();
    eg.credential_file = (char *)"/k";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0); /* both */
    eg.credential_env = NULL;
    eg.credential_file = NULL;
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0); /* neither */
    eg.credential_file = (char *)"relative/key";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.credential_file = NULL;
    eg.credential_env = (char *)"1BAD";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.credential_env = (char *)"A=B";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
}

TEST(config_refuses_bad_headers_and_prefixes)
{
    struct rr_egress eg = good();
    eg.header = (char *)"x api key";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.header = (char *)"Host";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.header = (char *)"content-length";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.header = (char *)"";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg = good();
    eg.header_prefix = (char *)"Bearer\r\nX-Evil: 1";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.header_prefix = (char *)"Bearer ";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) == 0);
    eg = good();
    eg.base_url_env = (struct rr_strv){bad_url_vars, 2};
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
    eg.base_url_env = (struct rr_strv){suffix_vars, 2};
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) == 0);
    for (size_t i = 0; i < sizeof(bad_suffixes) / sizeof(bad_suffixes[0]); i++) {
        eg.base_url_env = (struct rr_strv){bad_suffixes[i], 1};
        if (!CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0))
            tap_note("accepted %s", bad_suffixes[i][0]);
    }
    eg = good();
    eg.upstream = (char *)"http://api.anthropic.com";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0);
}

TEST(config_refuses_allow_prefixes_that_could_not_mean_what_they_say)
{
    static const char *const bad[] = {"v1/", "/v1/../", "/v1/%2e/", "/v1?x", "/v1//",
                                      "/v1\\", "/v1/ x"};
    struct rr_egress eg = good();
    char *one[2] = {NULL, NULL};

    eg.allow = (struct rr_strv){one, 1};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        one[0] = (char *)bad[i];
        if (!CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) < 0))
            tap_note("accepted: %s", bad[i]);
    }
    one[0] = (char *)"/v1/messages";
    CHECK(egress_config_validate(&eg, RR_NET_NONE, &err) == 0);
}

static int load_file_with(const char *content, struct egress_secret *s)
{
    char path[] = "/tmp/revrun-egress-key.XXXXXX";
    int fd = mkstemp(path), r;

    if (fd < 0)
        return -2;
    if (write(fd, content, strlen(content)) != (ssize_t)strlen(content))
        r = -2;
    else
        r = egress_secret_load(path, NULL, s, &err);
    close(fd);
    unlink(path);
    return r;
}

TEST(secret_from_a_file)
{
    struct egress_secret s = {0};

    CHECK(load_file_with("sk-0123456789\n", &s) == 0);
    CHECK(s.n == 13 && memcmp(s.p, "sk-0123456789", 13) == 0);
    egress_secret_wipe(&s);
    CHECK(s.p == NULL && s.n == 0);
    CHECK(load_file_with("sk-0123456789\r\n", &s) == 0 && s.n == 13);
    egress_secret_wipe(&s);
    /* a line break inside would split the injected header */
    CHECK(load_file_with("sk-0123\r\nX-Evil: 1\n", &s) < 0);
    CHECK(load_file_with("sk-01234 56789", &s) < 0);
    CHECK(load_file_with("short\n", &s) < 0);
    CHECK(load_file_with("", &s) < 0);
    CHECK(egress_secret_load("/nonexistent/key", NULL, &s, &err) < 0);
    CHECK(egress_secret_load(NULL, NULL, &s, &err) < 0);
    CHECK(egress_secret_load("/k", "V", &s, &err) < 0);
}

TEST(secret_from_the_environment_is_wiped_there)
{
    struct egress_secret s = {0};

    setenv("REVRUN_TEST_SECRET", "sk-env-0123456789", 1);
    CHECK(egress_secret_load(NULL, "REVRUN_TEST_SECRET", &s, &err) == 0);
    CHECK(s.n == 17 && memcmp(s.p, "sk-env-0123456789", 17) == 0);
    CHECK(getenv("REVRUN_TEST_SECRET") == NULL);
    egress_secret_wipe(&s);
    CHECK(egress_secret_load(NULL, "REVRUN_TEST_SECRET", &s, &err) < 0);
}

TEST(base_url)
{
    char buf[64];
    egress_base_url(8080, buf, sizeof(buf));
    CHECK(strcmp(buf, "http://127.0.0.1:8080") == 0);
}
