/* The packs in a git directory's objects/pack, opened for gitpack.h: each
 * pack-<hex>.idx and its pack-<hex>.pack opened beneath the directory fd
 * (no symlink followed, regular files only, O_PATH first so no fifo is
 * opened), at most WB_PACKS_MAX pairs, each file under its size cap, each
 * index loaded (gitidx.h) and each pack checked against it before it joins
 * the set. A pack left out is said (the first reason), so that an object
 * not found is known not to be proof that no pack holds it. */
#ifndef REVRUN_WB_GITPACKDIR_H
#define REVRUN_WB_GITPACKDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "writeback/git/gitpack.h"

#define WB_PACKS_MAX 32u                 /* packs read: git gc leaves one */
#define WB_PACKDIR_NAMES_MAX 4096u       /* entries of objects/pack looked at */
#define WB_PACKIDX_FILE_MAX (1ull << 30) /* bytes of an index (~38 million objects) */
#define WB_PACK_FILE_MAX (64ull << 30)   /* bytes of a pack */

struct wb_packdir {
    struct wb_pack p[WB_PACKS_MAX];
    size_t n;
    char skipped[160]; /* why a pack there was left out (the first), "" when none was */
};

/* Open git_fd's objects/pack into *d (empty when there is none). -1 only
 * for ENOMEM: a pack that cannot be read is left out and said. */
int wb_packdir_open(int git_fd, struct wb_packdir *d, struct rr_error *err);
void wb_packdir_close(struct wb_packdir *d);

#endif
