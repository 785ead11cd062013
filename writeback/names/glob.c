#include "writeback/names/glob.h"

#include <fnmatch.h>
#include <string.h>

#include "writeback/names/names.h"

struct seg {
    const char *s;
    size_t len;
};

#define GLOB_MAX_SEGS 128

/* Split at '/', skipping empty segments; false when there are too many. */
static bool split(const char *s, size_t len, struct seg *out, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < len;) {
        const char *slash = memchr(s + i, '/', len - i);
        size_t end = slash ? (size_t)(slash - s) : len;
        if (end > i) {
            if (*n == GLOB_MAX_SEGS)
                return false;
            out[(*n)++] = (struct seg){s + i, end - i};
        }
        i = end + 1;
    }
    return true;
}

/* canon: match the name as macOS and Windows resolve it, without case. */
static bool seg_match(struct seg pat, struct seg name, bool canon)
{
    char p[256], n[256];

    if (pat.len >= sizeof(p) || name.len >= sizeof(n))
        return false;
    memcpy(p, pat.s, pat.len);
    p[pat.len] = '\0';
    if (canon)
        return wb_name_canon(name.s, name.len, n, sizeof(n)) && fnmatch(p, n, FNM_CASEFOLD) == 0;
    memcpy(n, name.s, name.len);
    n[name.len] = '\0';
    return fnmatch(p, n, 0) == 0;
}

static bool is_globstar(struct seg s)
{
    return s.len == 2 && s.s[0] == '*' && s.s[1] == '*';
}

/* Does pat[0..np) match a prefix (a directory or the path itself) of
 * path[0..nn)? Matching a prefix is enough: a matched directory covers
 * everything in it. Dynamic programming over (pattern, path) positions:
 * reach[j] says pat[0..i) can consume exactly path[0..j). */
static bool match_prefix(const struct seg *pat, size_t np, const struct seg *path, size_t nn,
                         bool canon)
{
    bool reach[GLOB_MAX_SEGS + 1], next[GLOB_MAX_SEGS + 1];

    memset(reach, 0, sizeof(reach));
    reach[0] = true;
    for (size_t i = 0; i < np; i++) {
        memset(next, 0, sizeof(next));
        for (size_t j = 0; j <= nn; j++) {
            if (!reach[j])
                continue;
            if (is_globstar(pat[i])) {
                for (size_t k = j; k <= nn; k++)
                    next[k] = true;
            } else if (j < nn && seg_match(pat[i], path[j], canon)) {
                next[j + 1] = true;
            }
        }
        memcpy(reach, next, sizeof(reach));
    }
    for (size_t j = 1; j <= nn; j++)
        if (reach[j])
            return true;
    /* "X" followed by a globstar names X's contents; X itself is covered too
     * (so the .git pattern also refuses replacing .git). */
    return np > 0 && is_globstar(pat[np - 1]) && match_prefix(pat, np - 1, path, nn, canon);
}

static bool glob_match(const char *pattern, const char *path, size_t len, bool canon)
{
    struct seg pat[GLOB_MAX_SEGS], segs[GLOB_MAX_SEGS];
    size_t np, nn, plen = strlen(pattern);
    bool anchored;

    while (plen > 0 && pattern[plen - 1] == '/')
        plen--; /* "dir/" means the directory: same as "dir" here */
    anchored = memchr(pattern, '/', plen) != NULL;
    if (!split(pattern, plen, pat, &np) || !split(path, len, segs, &nn) || np == 0)
        return false;
    if (anchored)
        return match_prefix(pat, np, segs, nn, canon);
    for (size_t j = 0; j < nn; j++)
        if (seg_match(pat[0], segs[j], canon))
            return true;
    return false;
}

/* The path as Linux names it, then as a macOS or Windows checkout would
 * (".GitModules", ".gitmodules.", "gitmod~1" are all .gitmodules there). */
bool wb_glob_match(const char *pattern, const char *path, size_t len)
{
    return glob_match(pattern, path, len, false) || glob_match(pattern, path, len, true);
}
