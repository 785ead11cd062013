/* `revrun apply` / `revrun writeback`: a vetted, approved change set onto a
 * TARGET checkout, all or nothing.
 *
 *  1. verify, writing nothing: every touched path in TARGET still holds its
 *     base (type, content hash, executable bit), directories the set removes
 *     hold nothing the set does not remove, and nothing on the way is a
 *     symlink or a mount (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 *     RESOLVE_NO_MAGICLINKS|RESOLVE_NO_XDEV for every path). Any conflict
 *     refuses the whole set, naming every path.
 *  2. stage: new content is copied into a private directory in TARGET (same
 *     filesystem), each byte hashed against the approved digest's manifest.
 *  3. commit with renames: removals move into the stage (children first),
 *     placements rename or RENAME_EXCHANGE out of it (parents first); every
 *     step is logged before it is done, in memory and in the journal, and
 *     on any failure the log is undone in reverse, so TARGET holds exactly
 *     its previous bytes (the same inodes, even). When the process dies
 *     mid-commit, the journal lets the next apply or `revrun sweep` undo
 *     the same steps (journal.h).
 *
 * Only content and the executable bit are carried: new files are 0644/0755,
 * a modified file keeps its permission bits with x set or cleared, new
 * directories are 0755; no other bit, no xattr. Run as root (onto a user's
 * checkout), apply keeps owners as the user's own tools would: a changed
 * path keeps its owner, a new one gets its directory's. The manifest's
 * paths were vetted (no .git anywhere), so nothing is written under .git.
 *
 * A TARGET that already holds every change's new state (the same set
 * applied before) is left alone: already_applied, nothing written. */
#ifndef REVRUN_WB_APPLY_H
#define REVRUN_WB_APPLY_H

#include <stdbool.h>

#include "writeback/changeset/changeset.h"

/* Where new content comes from: an export's blobs/<sha256>, or the upper
 * itself at the change's path (writeback from a live bundle). */
struct wb_source {
    int rootfd;
    bool blobs;
};

struct wb_apply_result {
    struct wb_notes conflicts; /* why the set was refused */
    bool restore_failed;       /* a rollback step failed: see stage */
    bool already_applied;      /* TARGET held the set's result: nothing written */
    char stage[64];            /* the stage directory's name in TARGET */
};

/* Where the set goes: TARGET open as a directory, the absolute path it was
 * opened by, and the journal's fd (-1: none, for tests; see journal.h). */
struct wb_target {
    int fd;
    const char *path;
    int journal;
};

/* 0 applied; 1 refused (res->conflicts); -1 error (TARGET restored, unless
 * res->restore_failed: then the journal still holds the steps to undo). */
int wb_apply(const struct wb_changeset *cs, const struct wb_source *src,
             const struct wb_target *target, struct wb_apply_result *res, struct rr_error *err);

void wb_apply_result_free(struct wb_apply_result *res);

#endif
