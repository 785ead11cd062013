/* revrun.egress as the runtime's check sees it, and the upstream URL. */
#include <stdio.h>
#include <string.h>

#include "egress/egress.h"

static bool all_bytes(const char *s, bool (*ok)(unsigned char))
{
    for (; *s != '\0'; s++)
        if (!ok((unsigned char)*s))
            return false;
    return true;
}

static bool host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.';
}

static bool v6_char(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') ||
           c == ':' || c == '.';
}

static bool digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int parse_port(const char *s, size_t n, struct egress_upstream *out, struct rr_error *err)
{
    unsigned v = 0;

    if (n == 0 || n > 5)
        return rr_fail(err, 0, "upstream port must be 1-65535");
    for (size_t i = 0; i < n; i++) {
        if (!digit((unsigned char)s[i]))
            return rr_fail(err, 0, "upstream port must be 1-65535");
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return rr_fail(err, 0, "upstream port must be 1-65535");
    snprintf(out->port, sizeof(out->port), "%u", v);
    return 0;
}

/* host or [v6] into out->host; returns the length of the authority's host
 * part, or -1. */
static int parse_host(const char *a, size_t n, struct egress_upstream *out, struct rr_error *err)
{
    size_t hlen;
    const char *h = a;
    bool (*ok)(unsigned char) = host_char;

    if (n > 0 && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (close == NULL)
            return rr_fail(err, 0, "upstream: unterminated [IPv6] host");
        h = a + 1;
        hlen = (size_t)(close - h);
        ok = v6_char;
    } else {
        const char *colon = memchr(a, ':', n);
        hlen = colon ? (size_t)(colon - a) : n;
    }
    if (hlen == 0 || hlen >= sizeof(out->host))
        return rr_fail(err, 0, "upstream: missing or too long host");
    memcpy(out->host, h, hlen);
    out->host[hlen] = '\0';
    if (!all_bytes(out->host, ok))
        return rr_fail(err, 0, "upstream: invalid character in host");
    return (int)(h == a ? hlen : hlen + 2);
}

int egress_upstream_parse(const char *url, struct egress_upstream *out, struct rr_error *err)
{
    static const char scheme[] = "https://";
    const char *a;
    size_t n;
    int hl;

    memset(out, 0, sizeof(*out));
    if (url == NULL || strncmp(url, scheme, sizeof(scheme) - 1) != 0)
        return rr_fail(err, 0, "upstream must be an https:// URL");
    a = url + sizeof(scheme) - 1;
    n = strlen(a);
    if (n > 0 && a[n - 1] == '/')
        n--; /* "https://host/" is the same origin */
    if (memchr(a, '/', n) || memchr(a, '@', n) || memchr(a, '?', n) || memchr(a, '#', n))
        return rr_fail(err, 0, "upstream must be https://host[:port], with no path or user");
    hl = parse_host(a, n, out, err);
    if (hl < 0)
        return -1;
    if ((size_t)hl < n) {
        if (a[hl] != ':' || parse_port(a + hl + 1, n - (size_t)hl - 1, out, err) < 0)
            return rr_fail(err, 0, "upstream: bad port in %s", url);
    } else {
        strcpy(out->port, "443");
    }
    snprintf(out->host_header, sizeof(out->host_header), "%.*s%s%s", hl, a,
             strcmp(out->port, "443") ? ":" : "", strcmp(out->port, "443") ? out->port : "");
    return 0;
}

void egress_base_url(uint16_t port, char *out, size_t len)
{
    snprintf(out, len, "http://127.0.0.1:%u", (unsigned)port);
}

static bool env_name_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || digit(c) || c == '_';
}

static bool env_name(const char *s)
{
    return s[0] != '\0' && !digit((unsigned char)s[0]) && all_bytes(s, env_name_char);
}

static bool token_char(unsigned char c)
{
    return eg_is_tchar(c);
}

/* An allow prefix is the operator's, but it is compared with decoded
 * agent paths: one the path rules would refuse could never match, or could
 * match more than it says. */
static int check_prefix(const char *p, struct rr_error *err)
{
    char *root[] = {(char *)"/", NULL};
    const struct rr_strv any = {root, 1};
    struct eg_refusal why;

    if (p[0] != '/' || strchr(p, '?') != NULL || strchr(p, '%') != NULL ||
        eg_target_check((struct eg_slice){p, strlen(p)}, &any, &why) < 0)
        return rr_fail(err, 0, "egress allow prefix '%s' is not a plain absolute path", p);
    return 0;
}

static int check_credential_source(const struct rr_egress *eg, struct rr_error *err)
{
    if ((eg->credential_file == NULL) == (eg->credential_env == NULL))
        return rr_fail(err, 0, "egress needs exactly one of credentialFile and credentialEnv");
    if (eg->credential_file != NULL && eg->credential_file[0] != '/')
        return rr_fail(err, 0, "egress credentialFile must be an absolute path");
    if (eg->credential_env != NULL && !env_name(eg->credential_env))
        return rr_fail(err, 0, "egress credentialEnv is not a variable name");
    return 0;
}

/* The injected header replaces the agent's; it may not be one that frames
 * or routes the request. */
static int check_header(const char *header, const char *prefix, struct rr_error *err)
{
    struct eg_slice h = {header, header ? strlen(header) : 0};

    if (header != NULL && (h.n == 0 || !all_bytes(header, token_char)))
        return rr_fail(err, 0, "egress header is not a header name");
    if (header != NULL && (eg_slice_ieq(h, "host") || eg_slice_ieq(h, "content-length") ||
                           eg_slice_ieq(h, "transfer-encoding") || eg_slice_ieq(h, "connection")))
        return rr_fail(err, 0, "egress header may not be %s", header);
    if (prefix != NULL && !eg_is_field_value(prefix, strlen(prefix)))
        return rr_fail(err, 0, "egress headerPrefix has control characters");
    return 0;
}

int egress_check_route(const char *upstream, const struct rr_strv *allow, const char *header,
                       const char *header_prefix, struct rr_error *err)
{
    struct egress_upstream up;

    if (egress_upstream_parse(upstream, &up, err) < 0)
        return rr_wrap(err, "egress");
    if (check_header(header, header_prefix, err) < 0)
        return -1;
    for (size_t i = 0; allow != NULL && i < allow->n; i++)
        if (check_prefix(allow->v[i], err) < 0)
            return -1;
    return 0;
}

int egress_check_base_url_var(const char *spec, struct rr_error *err)
{
    const char *eq = strchr(spec, '=');
    char name[128];
    size_t n = eq ? (size_t)(eq - spec) : strlen(spec);

    if (n == 0 || n >= sizeof(name))
        return rr_fail(err, 0, "not a variable name");
    memcpy(name, spec, n);
    name[n] = '\0';
    if (!env_name(name))
        return rr_fail(err, 0, "\"%s\" is not a variable name", name);
    if (eq != NULL && check_prefix(eq + 1, err) < 0)
        return rr_fail(err, 0, "the path after %s= must be a plain absolute path", name);
    return 0;
}

int egress_config_validate(const struct rr_egress *eg, enum rr_network net, struct rr_error *err)
{
    if (eg->mode == RR_EGRESS_NONE)
        return 0;
    if (net == RR_NET_HOST)
        return rr_fail(err, 0, "egress broker with network \"host\": the agent would bypass it");
    if (egress_check_route(eg->upstream, &eg->allow, eg->header, eg->header_prefix, err) < 0 ||
        check_credential_source(eg, err) < 0)
        return -1;
    /* port 0 stands for EGRESS_DEFAULT_PORT */
    for (size_t i = 0; i < eg->base_url_env.n; i++)
        if (egress_check_base_url_var(eg->base_url_env.v[i], err) < 0)
            return rr_wrap(err, "egress baseUrlEnv[%zu]", i);
    return 0;
}
