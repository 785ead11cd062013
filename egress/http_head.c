/* Line and header-field syntax shared by the request and response parsers:
 * CRLF-terminated lines only, and field lines that cannot be read two ways. */
#include "egress/http_head.h"

#include <ctype.h>
#include <string.h>

bool eg_is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

int eg_refuse(struct eg_refusal *why, int status, const char *reason)
{
    why->status = status;
    why->reason = reason;
    return EG_REFUSED;
}

bool eg_is_field_value(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x7f || (c < 0x20 && c != '\t'))
            return false;
    }
    return true;
}

bool eg_slice_ieq(struct eg_slice s, const char *name)
{
    return strlen(name) == s.n && strncasecmp(s.p, name, s.n) == 0;
}

bool eg_slice_ieq_fold(struct eg_slice s, const char *name)
{
    if (strlen(name) != s.n)
        return false;
    for (size_t i = 0; i < s.n; i++) {
        char a = s.p[i], b = name[i];
        if (a == '_' && b == '-')
            continue;
        if (tolower((unsigned char)a) != tolower((unsigned char)b))
            return false;
    }
    return true;
}

int eg_next_line(const char *buf, size_t len, size_t pos, size_t *line_len, size_t *next)
{
    const char *lf = memchr(buf + pos, '\n', len - pos);
    const char *cr;

    if (lf == NULL) {
        /* A CR that is not the last byte so far cannot start a CRLF. */
        cr = memchr(buf + pos, '\r', len - pos);
        if (cr != NULL && cr != buf + len - 1)
            return EG_REFUSED;
        return EG_NEED_MORE;
    }
    if (lf == buf + pos || lf[-1] != '\r')
        return EG_REFUSED; /* bare LF */
    *line_len = (size_t)(lf - 1 - (buf + pos));
    if (memchr(buf + pos, '\r', *line_len) != NULL)
        return EG_REFUSED; /* bare CR inside the line */
    *next = (size_t)(lf + 1 - buf);
    return EG_COMPLETE;
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

int eg_parse_field(const char *line, size_t n, struct eg_header *h)
{
    size_t i = 0;
    size_t end = n;

    /* obs-fold (a continuation line) and whitespace before the colon are
     * both read differently by different servers: refused. */
    while (i < n && eg_is_tchar((unsigned char)line[i]))
        i++;
    if (i == 0 || i == n || line[i] != ':')
        return -1;
    h->name.p = line;
    h->name.n = i;
    i++;
    while (i < end && is_ows(line[i]))
        i++;
    while (end > i && is_ows(line[end - 1]))
        end--;
    if (!eg_is_field_value(line + i, end - i))
        return -1;
    h->value.p = line + i;
    h->value.n = end - i;
    return 0;
}

int eg_parse_fields(const char *buf, size_t len, size_t pos, size_t max_head, size_t max_fields,
                    struct eg_header *out, size_t *n_out, size_t *head_len)
{
    size_t n = 0;

    for (;;) {
        size_t line_len = 0, next = 0;
        int r = eg_next_line(buf, len, pos, &line_len, &next);

        if (r == EG_NEED_MORE)
            return len >= max_head ? EG_FIELDS_TOO_BIG : EG_NEED_MORE;
        if (r == EG_REFUSED)
            return EG_FIELDS_BAD;
        if (next > max_head)
            return EG_FIELDS_TOO_BIG;
        if (line_len == 0) {
            *n_out = n;
            *head_len = next;
            return EG_COMPLETE;
        }
        if (n == max_fields)
            return EG_FIELDS_TOO_MANY;
        if (eg_parse_field(buf + pos, line_len, &out[n]) < 0)
            return EG_FIELDS_BAD;
        n++;
        pos = next;
    }
}

size_t eg_buf_put(char *out, size_t cap, size_t at, const char *s, size_t n)
{
    if (at >= cap || n > cap - at)
        return cap; /* marks overflow: callers compare with cap */
    memcpy(out + at, s, n);
    return at + n;
}

size_t eg_buf_puts(char *out, size_t cap, size_t at, const char *s)
{
    return eg_buf_put(out, cap, at, s, strlen(s));
}

size_t eg_buf_field(char *out, size_t cap, size_t at, const struct eg_header *h)
{
    at = eg_buf_put(out, cap, at, h->name.p, h->name.n);
    at = eg_buf_puts(out, cap, at, ": ");
    at = eg_buf_put(out, cap, at, h->value.p, h->value.n);
    return eg_buf_puts(out, cap, at, "\r\n");
}
