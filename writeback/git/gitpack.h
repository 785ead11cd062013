/* Objects out of the packs the agent wrote (git gc, git repack), read as
 * hostile input with every cost bounded before it is paid:
 * - a pack is read only once its header (PACK, version 2 or 3, the
 *   index's object count) and its trailer (the sum the index records)
 *   agree with its index (gitidx.h); offsets stay between the header
 *   and the trailer;
 * - an entry's declared size is checked against its cap before anything
 *   is inflated, and inflating stops one byte past it (gitinflate.h); the
 *   compressed bytes read for an entry are at most what zlib could need
 *   for that size (size + size/64 + 1 KiB);
 * - a delta chain (OFS_DELTA: the base lies before the delta in the same
 *   pack; REF_DELTA: the base is looked up by id in the packs, its own pack
 *   first) is followed with an explicit stack of WB_PACK_DEPTH_MAX links,
 *   headers first, then applied from the base up: no recursion, and a
 *   cycle of REF_DELTA bases ends at the depth cap;
 * - a set carries a budget across one walk: index lookups, entry headers
 *   read, bytes read and inflated.
 * What fails a bound is "not read", with the reason; never a crash. Pure
 * over spans: the files are opened elsewhere (gitpackdir.h). */
#ifndef REVRUN_WB_GITPACK_H
#define REVRUN_WB_GITPACK_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "writeback/git/gitidx.h"
#include "writeback/git/gitspan.h"

#define WB_PACK_DEPTH_MAX 50u           /* deltas in a chain: git's default pack.depth */
#define WB_PACK_OBJ_MAX (1u << 20)      /* bytes of a delta or of a base, inflated */
#define WB_PACK_BUDGET (64ull << 20)    /* bytes read and inflated in one walk */
#define WB_PACK_ENTRIES_MAX 4096u       /* entry headers read in one walk */
#define WB_PACK_LOOKUPS_MAX 8192u       /* index lookups (<= 32 reads each) in one walk */

enum wb_obj_type { WB_OBJ_COMMIT = 1, WB_OBJ_TREE = 2, WB_OBJ_BLOB = 3, WB_OBJ_TAG = 4 };

struct wb_pack {
    struct wb_packidx ix;
    struct wb_span pack;
};

struct wb_packset {
    const struct wb_pack *p;
    size_t n;
    uint64_t spent;   /* bytes read and inflated so far */
    unsigned entries; /* entry headers read so far */
    unsigned lookups; /* index lookups made so far */
};

/* NULL when pack agrees with its index; else why not. */
const char *wb_pack_check(const struct wb_packidx *ix, const struct wb_span *pack);

/* The object id from the set, its result at most max bytes (max <=
 * WB_PACK_OBJ_MAX): 1, its type and a new NUL-terminated buffer; 0 with
 * *why NULL when no pack of the set holds id; 0 with *why when one does but
 * reading it fails a bound or a check; -1 (ENOMEM). */
int wb_packset_read(struct wb_packset *s, const unsigned char id[WB_OID_LEN], size_t max,
                    enum wb_obj_type *type, char **out, size_t *len, const char **why,
                    struct rr_error *err);

#endif
