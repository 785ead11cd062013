/* A quick "could it be ignored?" before asking libgit2, which costs a
 * library load and ~10 ms of initialisation per process: loaded only when
 * some rule may match. Sound, not exact: "no" means no rule of the text
 * can match the path or a directory above it under git's rules; "yes" means
 * libgit2 decides. Pure. */
#ifndef REVRUN_WB_GITMATCH_H
#define REVRUN_WB_GITMATCH_H

#include <stdbool.h>
#include <stddef.h>

/* Could pattern p[0..plen) (one gitignore pattern, already stripped of "!",
 * a leading and a trailing "/") match s[0..slen)? A superset of git's
 * wildmatch: '*' matches any string, '/' included, "**" followed by a slash
 * also the empty string; '?' and a bracket expression match any one byte; a
 * backslash takes the next byte literally; a malformed pattern matches. */
bool wb_glob_may_match(const char *p, size_t plen, const char *s, size_t slen);

/* Could a line of this ignore file (the one of the directory that rel is
 * relative to) ignore rel or a directory above it? */
bool wb_ignore_may_match(const char *text, size_t len, const char *rel, size_t rlen);

#endif
