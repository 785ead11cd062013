/* Whether a file's content may be printed as text to a person (the patch
 * `revrun diff --patch` prints): what a terminal shows must be the bytes
 * `apply` writes. Streamed, so any size costs a few bytes of state.
 *
 * binary: a NUL in the first 8000 bytes (git's own test: shown as a
 *         "GIT binary patch" as git would).
 * unsafe: anything a terminal acts on or that reorders or hides text:
 *         a carriage return (a line that shows as one command and runs as
 *         another), ESC and every other C0 control but TAB and LF, DEL,
 *         C1 controls (as UTF-8 or as raw bytes), a NUL later on, invalid
 *         UTF-8, bidirectional controls (Trojan Source), U+2028/U+2029.
 *         Shown as a binary patch too, with the reason. */
#ifndef REVRUN_WB_TEXTCLASS_H
#define REVRUN_WB_TEXTCLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_BINARY_PROBE 8000

struct wb_textclass {
    uint64_t off;         /* bytes fed so far */
    unsigned char pend[4]; /* an incomplete UTF-8 sequence carried over */
    size_t npend;
    bool binary;
    const char *unsafe; /* the first reason found, or NULL */
    uint64_t lines;     /* newline-terminated lines, plus a last one without */
    bool last_nl;       /* the last byte fed was '\n' */
};

void wb_textclass_init(struct wb_textclass *t);
void wb_textclass_feed(struct wb_textclass *t, const void *data, size_t len);
/* The end of the content: an unfinished UTF-8 sequence is unsafe. */
void wb_textclass_finish(struct wb_textclass *t);

#endif
