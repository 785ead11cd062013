/* A git configuration file's entries as git's own parser (config.c:
 * get_base_var, get_value, parse_value) reads them, from its text alone:
 * section headers with quoted subsections, keys, values with quotes,
 * escapes, comments and continued lines. Whatever git would refuse is
 * skipped to the line's end, so nothing git reads is missed. */
#ifndef REVRUN_GIT_CONFIG_PARSE_H
#define REVRUN_GIT_CONFIG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* Where the entry walk is: the text's position and line, and the section
 * the next key falls in. section points into the text (alnum, '-'), so the
 * cursor is only good for the text it started on. Starts zeroed. */
struct lgc_cursor {
    size_t pos;
    unsigned line;
    const char *section; /* NULL before any header and after one git refuses */
    size_t section_len;
    char subsection[512]; /* unescaped as git reads it; "" when none */
    bool subsection_over; /* it did not fit (cut) */
};

/* One "name = value" (or bare "name") as git reads it. name points into
 * the text: a key is letters, digits and '-', which git compares without
 * case. */
struct git_config_entry {
    const char *name;
    size_t name_len;
    unsigned line;  /* 1-based, of its key */
    bool has_value; /* false: a bare key (git reads it as true) */
    bool over;      /* the value did not fit in the caller's buffer (cut) */
};

/* The next entry: 1 with e filled and its value (unquoted and unescaped as
 * git's parse_value makes it) in value[cap]; 0 at the end. */
int lgc_next(const char *text, size_t len, struct lgc_cursor *cur,
                    struct git_config_entry *e, char *value, size_t cap);

/* Where git, reading a config inside, finds an [include] or [includeIf]
 * file: one call per `path` key of such a section, in order. */
struct lgc_include_cursor {
    struct lgc_cursor c;
};

/* The next include path of this config text into out: 1, with *line
 * (1-based) where its key is; -1 when it did not fit in cap (git could not
 * open it either); 0 at the end. The cursor starts zeroed. */
int lgc_next_include(const char *text, size_t len, struct lgc_include_cursor *cur,
                            unsigned *line, char *out, size_t cap);

/* Is the cursor in section `name` (lowercase; git compares without case)? */
bool lgc_in_section(const struct lgc_cursor *cur, const char *name);

#endif
