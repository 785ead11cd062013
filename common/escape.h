/* Text that the agent or the checkout controls (file names, symlink targets,
 * a child's stderr) is escaped before it reaches a person's terminal or
 * revrun's logs: no control sequence, no bidi override, no invalid UTF-8
 * survives, and long text is cut with a visible marker. */
#ifndef REVRUN_ESCAPE_H
#define REVRUN_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Escape s[0..len) into out (always NUL-terminated). Printable ASCII and
 * well-formed UTF-8 letters pass; a backslash becomes "\\"; everything else
 * becomes \xHH per byte. When out is too small the text is cut at a sequence
 * boundary and "...[truncated]" is appended. Returns out. */
char *rr_escape(const char *s, size_t len, char *out, size_t outlen);

/* The same; *used is how many input bytes the output shows (len, unless
 * it was cut). */
char *rr_escape_used(const char *s, size_t len, char *out, size_t outlen, size_t *used);

/* True when s[0..len) is what rr_escape writes: nothing in it a terminal
 * or a CI log would act on, every other byte shown as is (text read back
 * from revrun's own escaped records, checked before it is shown). */
bool rr_is_escaped(const char *s, size_t len);

/* Bytes needed to escape len input bytes without truncation (including NUL). */
size_t rr_escape_size(size_t len);

/* The same, into a new allocation (NULL on ENOMEM). */
char *rr_escape_dup(const char *s, size_t len);

/* Decode one well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF) into *cp; returns its length, or 0 when
 * the bytes are not one. */
size_t rr_utf8_decode(const unsigned char *s, size_t avail, uint32_t *cp);

/* The value of one hex digit (either case), or -1. */
int rr_hexval(char c);

#endif
