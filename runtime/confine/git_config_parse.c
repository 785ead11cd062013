/* A git configuration file's entries (see git_config_parse.h). */
#include "runtime/confine/git_config_parse.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *line_end(const char *p, const char *end)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));

    return nl != NULL ? nl : end;
}

static bool key_char(char c)
{
    return isalnum((unsigned char)c) || c == '-';
}

static void sub_put(struct lgc_cursor *cur, size_t *o, char c)
{
    if (*o + 1 < sizeof(cur->subsection))
        cur->subsection[(*o)++] = c;
    else
        cur->subsection_over = true;
    cur->subsection[*o] = '\0';
}

/* [section "sub"]'s quoted part, p after its '"': escapes as git reads
 * them; the position after the closing "]", or NULL when git refuses. */
static const char *quoted_sub(const char *p, const char *end, struct lgc_cursor *cur,
                              size_t *o)
{
    for (; p < end && *p != '"' && *p != '\n'; p++) {
        if (*p == '\\' && p + 1 < end && p[1] != '\n')
            p++;
        sub_put(cur, o, *p);
    }
    if (p + 1 >= end || *p != '"' || p[1] != ']')
        return NULL;
    return p + 2;
}

/* A section header at p ('['), as git's get_base_var reads it, into cur:
 * [name], [name.sub] (old style, all lowercase) or [name "sub"]. Where
 * parsing goes on: after its ']' (a key may follow on the line), or at the
 * line's end when git would refuse it (the section then unknown). */
static const char *header(const char *p, const char *end, struct lgc_cursor *cur)
{
    const char *s = ++p, *dot, *name_end, *after = NULL;
    size_t o = 0;

    cur->section = NULL;
    cur->subsection[0] = '\0';
    cur->subsection_over = false;
    while (p < end && (key_char(*p) || *p == '.'))
        p++;
    name_end = p;
    dot = memchr(s, '.', (size_t)(p - s));
    for (const char *q = dot != NULL ? dot + 1 : name_end; q < name_end; q++)
        sub_put(cur, &o, (char)tolower((unsigned char)*q));
    if (p < end && *p == ']') {
        after = p + 1;
    } else if (p < end && *p != '\n' && isspace((unsigned char)*p)) {
        while (p < end && *p != '\n' && isspace((unsigned char)*p))
            p++;
        if (p < end && *p == '"') {
            if (dot != NULL)
                sub_put(cur, &o, '.');
            after = quoted_sub(p + 1, end, cur, &o);
        }
    }
    if (after == NULL) {
        cur->subsection[0] = '\0';
        return line_end(p, end);
    }
    cur->section = s;
    cur->section_len = (size_t)((dot != NULL ? dot : name_end) - s);
    return after;
}

static void put(char *out, size_t cap, size_t *o, char c, bool *over)
{
    if (*o + 1 < cap)
        out[(*o)++] = c;
    else
        *over = true;
}

/* An escape's character, as parse_value takes it (an unknown one makes git
 * refuse the file: kept as it is, so nothing is lost). */
static char unescape(char c)
{
    return c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
}

/* The value after '=', as git's parse_value makes it: quotes dropped,
 * escapes taken, a continued line joined, a comment cut, outer blanks
 * trimmed. Stops at the line's '\n' (not taken: the caller counts it). */
static const char *value_at(const char *p, const char *end, unsigned *line, char *out,
                            size_t cap, bool *over)
{
    bool quote = false, comment = false;
    size_t o = 0, trim = 0;

    *over = false;
    while (p < end && !(*p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n'))) {
        char c = *p++;
        if (comment)
            continue;
        if (isspace((unsigned char)c) && !quote) {
            if (trim == 0)
                trim = o;
            if (o > 0)
                put(out, cap, &o, c, over);
            continue;
        }
        if (!quote && (c == ';' || c == '#')) {
            comment = true;
            continue;
        }
        trim = 0;
        if (c == '\\' && p < end) {
            c = *p++;
            if (c == '\r' && p < end && *p == '\n')
                c = *p++;
            if (c == '\n') {
                (*line)++;
                continue;
            }
            put(out, cap, &o, unescape(c), over);
        } else if (c == '"') {
            quote = !quote;
        } else {
            put(out, cap, &o, c, over);
        }
    }
    if (trim > 0)
        o = trim;
    if (cap > 0)
        out[o < cap ? o : cap - 1] = '\0';
    return p;
}

/* A key at p (a letter): name, then "= value", or nothing (a bare key,
 * true); NULL when git refuses the line. */
static const char *entry_at(const char *p, const char *end, struct lgc_cursor *cur,
                            struct git_config_entry *e, char *value, size_t cap)
{
    e->line = cur->line;
    e->name = p;
    while (p < end && key_char(*p))
        p++;
    e->name_len = (size_t)(p - e->name);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    e->over = false;
    e->has_value = p < end && *p == '=';
    if (e->has_value)
        return value_at(p + 1, end, &cur->line, value, cap, &e->over);
    if (cap > 0)
        value[0] = '\0';
    if (p < end && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n'))
        return NULL;
    return p;
}

int lgc_next(const char *text, size_t len, struct lgc_cursor *cur,
                    struct git_config_entry *e, char *value, size_t cap)
{
    const char *p = text + cur->pos, *end = text + len, *next;

    if (cur->line == 0) {
        cur->line = 1;
        if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 && cur->pos == 0)
            p += 3; /* git skips a UTF-8 byte order mark */
    }
    while (p < end) {
        if (*p == '\n') {
            cur->line++;
            p++;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (*p == '[') {
            p = header(p, end, cur);
        } else if (!isalpha((unsigned char)*p)) { /* a comment, or a line git refuses */
            p = line_end(p, end);
        } else if ((next = entry_at(p, end, cur, e, value, cap)) == NULL) {
            p = line_end(p, end);
        } else {
            cur->pos = (size_t)(next - text);
            return 1;
        }
    }
    cur->pos = len;
    return 0;
}

bool lgc_in_section(const struct lgc_cursor *cur, const char *name)
{
    return cur->section != NULL && cur->section_len == strlen(name) &&
           strncasecmp(cur->section, name, cur->section_len) == 0;
}

int lgc_next_include(const char *text, size_t len, struct lgc_include_cursor *cur,
                            unsigned *line, char *out, size_t cap)
{
    struct git_config_entry e;

    while (lgc_next(text, len, &cur->c, &e, out, cap) > 0) {
        if (!(lgc_in_section(&cur->c, "include") ||
              lgc_in_section(&cur->c, "includeif")) ||
            !e.has_value || e.name_len != 4 || strncasecmp(e.name, "path", 4) != 0)
            continue;
        *line = e.line;
        return e.over ? -1 : 1;
    }
    return 0;
}
