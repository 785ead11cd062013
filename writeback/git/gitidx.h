/* A pack index (objects/pack/pack-*.idx, version 2) the agent wrote, read
 * as hostile: the header, the fanout and the file's length must agree
 * before any lookup, a lookup reads only the 20-byte names its binary
 * search visits (at most 32 reads, nothing kept but the fanout), and an
 * offset is taken from the 64-bit table only within that table. Version 1
 * indexes (git before 1.5.2) and SHA-256 repositories are not read. */
#ifndef REVRUN_WB_GITIDX_H
#define REVRUN_WB_GITIDX_H

#include <stdint.h>

#include "writeback/git/gitspan.h"

#define WB_OID_LEN 20

struct wb_packidx {
    struct wb_span f;
    uint32_t fanout[256];
    uint32_t n;       /* objects */
    uint64_t n_large; /* entries of the 64-bit offset table */
    unsigned char pack_sum[WB_OID_LEN]; /* the pack's trailer, as the index records it */
};

/* NULL when f is a version 2 index whose magic, fanout (never decreasing)
 * and length (8 + 1024 + 28 n + 8 k + 40 bytes, k <= n) agree; else why not. */
const char *wb_packidx_load(struct wb_packidx *ix, const struct wb_span *f);

/* Where id's entry starts in the pack: 1 and *off, 0 when the index does
 * not hold id, -1 and *why when the index cannot say (a read failed, an
 * offset points past the 64-bit table). */
int wb_packidx_find(const struct wb_packidx *ix, const unsigned char id[WB_OID_LEN], uint64_t *off,
                    const char **why);

#endif
