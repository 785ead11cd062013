/* A bounded line diff (Myers' greedy algorithm): the common prefix and
 * suffix are trimmed first, then at most WB_MYERS_MAX_D edits are searched;
 * past that, the middle becomes one replacement (still a correct diff, just
 * not a minimal one). Memory stays O(D^2) ints with D capped. */
#ifndef REVRUN_WB_MYERS_H
#define REVRUN_WB_MYERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define WB_MYERS_MAX_D 2000

struct wb_line {
    const char *s; /* NULL: compared by len and hash alone (a keyed hash) */
    size_t len; /* including the '\n' when there is one */
    uint64_t hash;
};

enum wb_edit_op { WB_EQ, WB_DEL, WB_INS };

struct wb_edit {
    enum wb_edit_op op;
    size_t a, b; /* line index in a (EQ, DEL) and in b (EQ, INS) */
};

/* Split text into lines (the last one may lack '\n'). */
int wb_lines_split(const char *text, size_t len, struct wb_line **out, size_t *n,
                   struct rr_error *err);

/* The edit script turning a into b, in order. */
int wb_myers(const struct wb_line *a, size_t na, const struct wb_line *b, size_t nb,
             struct wb_edit **out, size_t *n, struct rr_error *err);

/* The same with max_d in place of WB_MYERS_MAX_D (memory O(max_d^2));
 * *capped (when not NULL) set when the middle needed more and was replaced
 * whole. */
int wb_myers_bounded(const struct wb_line *a, size_t na, const struct wb_line *b, size_t nb,
                     long max_d, struct wb_edit **out, size_t *n, bool *capped,
                     struct rr_error *err);

#endif
