#include "writeback/names/names.h"

#include <string.h>

#include "common/escape.h"
#include "common/cpclass.h"

/* Windows takes a backslash for a separator: "sub\.git\config" is a file
 * in .git there, "..\x" a step up. Refused rather than understood, so no
 * rule needs a second notion of a component. */
static const char why_backslash_name[] = "name holds a backslash (a separator on Windows)";
static const char why_backslash_target[] =
    "symlink target holds a backslash (a separator on Windows)";

/* Code points a name may not hold (common/cpclass.h), each class with
 * its own reason and code: controls end a line or drive a terminal in the
 * tools that print names (git, shells, CI logs); the others make a reader
 * see another name than the one written. */
static const char why_control[] = "name holds a control character or newline";
static const char why_bidi[] =
    "name holds a bidirectional control (Trojan Source: it reorders what is shown)";
static const char why_invisible[] =
    "name holds an invisible format character (zero-width, BOM, soft hyphen, ...)";
static const char why_confusable[] = "name holds a lookalike of a slash, backslash, dot or space";

static const char *cp_problem(uint32_t cp)
{
    switch (rr_cp_class(cp)) {
    case RR_CP_CONTROL:
        return why_control;
    case RR_CP_BIDI:
        return why_bidi;
    case RR_CP_INVISIBLE:
        return why_invisible;
    case RR_CP_CONFUSABLE:
        return why_confusable;
    case RR_CP_OK:
    default:
        return NULL;
    }
}

bool wb_next_component(const char *path, size_t len, size_t *pos, const char **c, size_t *clen)
{
    const char *slash;
    size_t end;

    if (*pos > len)
        return false;
    slash = memchr(path + *pos, '/', len - *pos);
    end = slash ? (size_t)(slash - path) : len;
    *c = path + *pos;
    *clen = end - *pos;
    *pos = end + 1;
    return true;
}

const char *wb_name_problem(const char *name, size_t len, size_t max_bytes)
{
    const unsigned char *p = (const unsigned char *)name;

    if (len == 0)
        return "empty name";
    if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
        return "name is . or ..";
    if (len > max_bytes)
        return "name longer than the cap";
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = rr_utf8_decode(p + i, len - i, &cp);
        const char *why;
        if (n == 0)
            return "name is not valid UTF-8";
        if (cp == '/')
            return "name holds a slash";
        if (cp == '\\')
            return why_backslash_name;
        if ((why = cp_problem(cp)) != NULL)
            return why;
        i += n;
    }
    /* Windows drops them ("run.sh." is "run.sh"): refused rather than
     * compared, so no rule has to know which name a checkout will get. */
    if (name[len - 1] == '.' || name[len - 1] == ' ')
        return "name ends in a dot or a space (Windows drops it)";
    return NULL;
}

const char *wb_path_problem(const char *path, size_t len, const struct rr_writeback_policy *pol)
{
    size_t depth = 0, pos = 0, n;
    const char *c, *why;

    if (len == 0)
        return "empty path";
    if (len > pol->max_path_bytes)
        return "path longer than the cap";
    while (wb_next_component(path, len, &pos, &c, &n)) {
        if ((why = wb_name_problem(c, n, pol->max_name_bytes)) != NULL)
            return why;
        if (++depth > pol->max_depth)
            return "path deeper than the cap";
    }
    return NULL;
}

const char *wb_target_problem(const char *target, size_t len, const struct rr_writeback_policy *pol)
{
    size_t pos = 0, n;
    const char *c, *why;

    if (len == 0)
        return "empty symlink target";
    if (len > pol->max_path_bytes)
        return "symlink target longer than the path cap";
    if (memchr(target, '\\', len) != NULL)
        return why_backslash_target;
    while (wb_next_component(target, len, &pos, &c, &n)) {
        bool dots = n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.');
        if (!dots && (why = wb_name_problem(c, n, pol->max_name_bytes)) != NULL)
            return why;
    }
    return NULL;
}

const char *wb_problem_code(const char *why, const char *code)
{
    if (why == why_backslash_name || why == why_backslash_target)
        return "backslash";
    if (why == why_bidi)
        return "bidi";
    if (why == why_invisible)
        return "invisible";
    if (why == why_confusable)
        return "confusable";
    return code;
}

bool wb_name_is_dotgit(const char *name, size_t len)
{
    char buf[16];

    return wb_name_canon(name, len, buf, sizeof(buf)) && strcmp(buf, ".git") == 0;
}

bool wb_path_has_dotgit(const char *path, size_t len)
{
    size_t pos = 0, n;
    const char *c;

    while (wb_next_component(path, len, &pos, &c, &n))
        if (wb_name_is_dotgit(c, n))
            return true;
    return false;
}
