#include "writeback/git/gitmatch.h"

#include <string.h>

/* The length of the bracket expression at p[0] == '[', or 0 when it does not
 * close (git then takes nothing as a match: we take anything). */
static size_t bracket_len(const char *p, size_t plen)
{
    size_t i = 1;

    if (i < plen && (p[i] == '!' || p[i] == '^'))
        i++;
    if (i < plen && p[i] == ']')
        i++;
    for (; i < plen; i++)
        if (p[i] == ']')
            return i + 1;
    return 0;
}

/* One pattern step at p[*pi] against s[si]: true and *pi advanced when it
 * consumes that byte; *malformed when the pattern cannot be read. */
static bool step(const char *p, size_t plen, size_t *pi, char c, bool *malformed)
{
    size_t n;

    switch (p[*pi]) {
    case '?':
        (*pi)++;
        return true;
    case '[':
        if ((n = bracket_len(p + *pi, plen - *pi)) == 0) {
            *malformed = true;
            return false;
        }
        *pi += n;
        return true;
    case '\\':
        if (*pi + 1 == plen) {
            *malformed = true;
            return false;
        }
        if (p[*pi + 1] != c)
            return false;
        *pi += 2;
        return true;
    default:
        if (p[*pi] != c)
            return false;
        (*pi)++;
        return true;
    }
}

bool wb_glob_may_match_n(const char *p, size_t plen, const char *s, size_t slen, uint64_t *steps)
{
    size_t pi = 0, si = 0, star_p = (size_t)-1, star_s = 0;
    bool malformed = false;

    /* The classic one-backtrack-point match: right for a '*' that may take
     * any string, which ours may. A call is four steps (what it costs
     * beside its turns), and every turn one more. */
    *steps += 4;
    while (si < slen || pi < plen) {
        (*steps)++;
        if (pi < plen && p[pi] == '*') {
            while (pi < plen && p[pi] == '*')
                pi++;
            if (pi < plen && p[pi] == '/' && pi >= 2 && p[pi - 2] == '*')
                pi++; /* "**" + "/": zero or more directories, so the slash is optional */
            star_p = pi;
            star_s = si;
            continue;
        }
        if (si < slen && pi < plen && step(p, plen, &pi, s[si], &malformed)) {
            si++;
            continue;
        }
        if (malformed)
            return true;
        if (star_p == (size_t)-1 || star_s >= slen)
            return false;
        pi = star_p;
        si = ++star_s;
    }
    return true;
}

bool wb_glob_may_match(const char *p, size_t plen, const char *s, size_t slen)
{
    uint64_t steps = 0;

    return wb_glob_may_match_n(p, plen, s, slen, &steps);
}

bool wb_ignore_pattern(const char *line, size_t len, const char **p, size_t *plen, bool *slash)
{
    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\r' || line[len - 1] == '\t'))
        len--;
    if (len == 0 || line[0] == '#' || line[0] == '!')
        return false;
    if (line[0] == '\\' && len > 1 && (line[1] == '#' || line[1] == '!')) {
        line++;
        len--;
    }
    if (len > 0 && line[len - 1] == '/')
        len--; /* a directory only: we match either */
    *slash = memchr(line, '/', len) != NULL;
    if (len > 0 && line[0] == '/') {
        line++;
        len--;
    }
    *p = line;
    *plen = len;
    return len > 0;
}

bool wb_pattern_may_match(const char *p, size_t plen, bool slash, const char *rel, size_t rlen,
                          uint64_t *steps)
{
    size_t start = 0;

    for (size_t i = 0; i <= rlen; i++) {
        if (i < rlen && rel[i] != '/')
            continue;
        if (slash ? wb_glob_may_match_n(p, plen, rel, i, steps)
                  : wb_glob_may_match_n(p, plen, rel + start, i - start, steps))
            return true;
        start = i + 1;
    }
    return false;
}

bool wb_ignore_may_match(const char *text, size_t len, const char *rel, size_t rlen)
{
    uint64_t steps = 0;
    size_t pos = 0;

    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *p;
        size_t llen = nl ? (size_t)(nl - line) : len - pos, plen;
        bool slash;
        pos += llen + 1;
        if (wb_ignore_pattern(line, llen, &p, &plen, &slash) &&
            wb_pattern_may_match(p, plen, slash, rel, rlen, &steps))
            return true;
    }
    return false;
}
