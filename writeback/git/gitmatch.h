/* A quick "could it be ignored?" before asking libgit2, which costs a
 * library load and ~10 ms of initialisation per process: loaded only when
 * some rule may match. Sound, not exact: "no" means no rule of the text
 * can match the path or a directory above it under git's rules; "yes" means
 * libgit2 decides. Pure. */
#ifndef REVRUN_WB_GITMATCH_H
#define REVRUN_WB_GITMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Could pattern p[0..plen) (one gitignore pattern, already stripped of "!",
 * a leading and a trailing "/") match s[0..slen)? A superset of git's
 * wildmatch: '*' matches any string, '/' included, "**" followed by a slash
 * also the empty string; '?' and a bracket expression match any one byte; a
 * backslash takes the next byte literally; a malformed pattern matches. */
bool wb_glob_may_match(const char *p, size_t plen, const char *s, size_t slen);

/* The same, adding the work it did (four steps a call, one more a turn) to
 * *steps: what the vet's budget counts (gitrules.h). */
bool wb_glob_may_match_n(const char *p, size_t plen, const char *s, size_t slen, uint64_t *steps);

/* A line (no newline) of an ignore file as a positive pattern: p[0..plen)
 * stripped as above, slash when it held one before a trailing one (it then
 * matches the path relative to its file, else a name). False for a
 * comment, a blank or a negation: those never make a path ignored. */
bool wb_ignore_pattern(const char *line, size_t len, const char **p, size_t *plen, bool *slash);

/* Could that pattern ignore rel or a directory above it? Steps added. */
bool wb_pattern_may_match(const char *p, size_t plen, bool slash, const char *rel, size_t rlen,
                          uint64_t *steps);

/* Could a line of this ignore file (the one of the directory that rel is
 * relative to) ignore rel or a directory above it? The reference: a scan of
 * every line (gitrules.h answers the same from rules parsed once). */
bool wb_ignore_may_match(const char *text, size_t len, const char *rel, size_t rlen);

#endif
