/* A line diff of two files of any size in bounded memory: each file is read
 * in chunks, a line is kept as its offset, length and keyed hash (never its
 * text), and Myers' diff runs over a window of WB_LD_WINDOW lines a side.
 * Past the window the edits up to its middle are given out and the window
 * slides on from there: still a correct diff (each step aligns what it
 * gives out), minimal within a window. Memory: the windows, the read
 * buffers and the bounded Myers search, whatever the files hold. */
#ifndef REVRUN_WB_LINEDIFF_H
#define REVRUN_WB_LINEDIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "writeback/patch/myers.h"

#define WB_LD_WINDOW 2048
#define WB_LD_MAX_D 1000
#define WB_LD_BUF 65536

struct wb_ld_reader {
    int fd;
    uint64_t size;      /* bytes to read (what was vetted) */
    uint64_t buf_off;   /* file offset of buf[0] */
    size_t len, pos;    /* bytes in buf, next one to look at */
    const uint64_t *key;
    char buf[WB_LD_BUF];
};

struct wb_ld_side {
    struct wb_ld_reader r;
    struct wb_line *w; /* the window: s NULL, len, hash */
    uint64_t *off;     /* each line's offset */
    size_t n;
    uint64_t base; /* line number of w[0] */
};

struct wb_ldiff {
    struct wb_ld_side a, b;
    struct wb_edit *script;
    size_t ns, si;   /* edits given out of the current window, next one */
    size_t ca, cb;   /* lines of each window they use */
    bool done;
    uint64_t key[2];
};

struct wb_ld_edit {
    enum wb_edit_op op;
    uint64_t ia, ib;     /* line numbers: in a for EQ and DEL, in b for EQ and INS */
    uint64_t off, len;   /* the line shown: a's for EQ and DEL, b's for INS */
};

/* fda/fdb hold sizea/sizeb bytes (fd -1 and size 0: empty). key: the
 * line hash's key (random per patch). */
int wb_ldiff_init(struct wb_ldiff *d, int fda, uint64_t sizea, int fdb, uint64_t sizeb,
                  const uint64_t key[2], struct rr_error *err);
/* The next edit; *end past the last. */
int wb_ldiff_next(struct wb_ldiff *d, struct wb_ld_edit *e, bool *end, struct rr_error *err);
void wb_ldiff_free(struct wb_ldiff *d);

/* Reading lines of a file in chunks: the next one's offset, length and
 * keyed hash; *got false at the end. */
int wb_ld_next_line(struct wb_ld_reader *r, uint64_t *off, uint64_t *len, uint64_t *hash,
                    bool *got, struct rr_error *err);

#endif
