/* The path rules. The broker does not normalise a path and forward the
 * result: it refuses every path whose meaning could depend on who decodes
 * or normalises it (the upstream, a CDN in front of it), so the allowlist
 * is judged on the same bytes the upstream will act on. */
#include <string.h>

#include "common/escape.h"
#include "egress/http_head.h"

struct eg_slice eg_target_path(struct eg_slice target)
{
    /* A request refused before its target was read has none. */
    const char *q = target.n > 0 ? memchr(target.p, '?', target.n) : NULL;

    return (struct eg_slice){target.p, q ? (size_t)(q - target.p) : target.n};
}

/* One decoded byte of the path at *i (advancing *i); -1 on a malformed
 * escape. *escaped tells whether it came from "%XX". */
static int decode_at(struct eg_slice p, size_t *i, bool *escaped)
{
    int hi, lo;

    *escaped = p.p[*i] == '%';
    if (!*escaped)
        return (unsigned char)p.p[(*i)++];
    if (*i + 2 >= p.n)
        return -1;
    hi = rr_hexval(p.p[*i + 1]);
    lo = rr_hexval(p.p[*i + 2]);
    if (hi < 0 || lo < 0)
        return -1;
    *i += 3;
    return hi * 16 + lo;
}

/* A byte of the decoded path: printable ASCII, and neither a backslash (a
 * separator to some servers) nor, when it was escaped, a "/" or "%" (which
 * a second decoding would turn into a separator or a new escape). */
static int check_byte(int c, bool escaped, struct eg_refusal *why)
{
    if (c < 0)
        return eg_refuse(why, 400, "malformed percent-encoding in path");
    if (c == '\\')
        return eg_refuse(why, 400, "backslash in path");
    if (c <= 0x20 || c >= 0x7f)
        return eg_refuse(why, 400, "control or non-ASCII byte in path");
    if (escaped && (c == '/' || c == '%'))
        return eg_refuse(why, 400, "encoded slash or percent in path");
    return 0;
}

/* A segment made only of dots, before any ";params", is a dot segment to
 * someone: ".", "..", "..;x", and "..." for servers that trim dots. */
static bool dot_segment(size_t dots, size_t len)
{
    return len > 0 && dots == len;
}

struct seg_state {
    size_t len;     /* decoded bytes of the segment before ';' */
    size_t dots;    /* how many of them are '.' */
    bool in_params; /* after ';' */
};

/* Only the last segment may be empty ("/v1/"): "//" is refused, since
 * servers disagree on whether it collapses. */
static int end_segment(struct seg_state *s, bool last, struct eg_refusal *why)
{
    if (dot_segment(s->dots, s->len))
        return eg_refuse(why, 400, "dot segment in path");
    if (s->len == 0 && !last)
        return eg_refuse(why, 400, "empty segment in path");
    *s = (struct seg_state){0};
    return 0;
}

static int check_syntax(struct eg_slice p, struct eg_refusal *why)
{
    struct seg_state seg = {0};
    size_t i = 0;

    if (p.n == 0 || p.p[0] != '/')
        return eg_refuse(why, 400, "path does not start with /");
    i = 1;
    while (i < p.n) {
        bool escaped;
        int c = decode_at(p, &i, &escaped);

        if (check_byte(c, escaped, why) < 0)
            return -1;
        if (c == '/') {
            if (end_segment(&seg, false, why) < 0)
                return -1;
        } else if (c == ';') {
            seg.in_params = true;
        } else if (!seg.in_params) {
            seg.len++;
            seg.dots += c == '.';
        }
    }
    return end_segment(&seg, true, why);
}

/* Does the decoded path start with prefix, at a segment boundary? The
 * path's syntax is already checked, so decoding cannot fail here. */
static bool prefix_match(struct eg_slice p, const char *prefix)
{
    size_t plen = strlen(prefix), k = 0, i = 0;
    bool escaped;

    while (k < plen && i < p.n)
        if (decode_at(p, &i, &escaped) != (unsigned char)prefix[k++])
            return false;
    if (k < plen)
        return false;
    return prefix[plen - 1] == '/' || i == p.n || p.p[i] == '/';
}

int eg_target_check(struct eg_slice target, const struct rr_strv *allow, struct eg_refusal *why)
{
    struct eg_slice p = eg_target_path(target);

    if (check_syntax(p, why) < 0)
        return -1;
    for (size_t i = 0; i < allow->n; i++)
        if (allow->v[i][0] != '\0' && prefix_match(p, allow->v[i]))
            return 0;
    return eg_refuse(why, 404, "path not allowed");
}
