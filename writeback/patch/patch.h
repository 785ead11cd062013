/* `revrun diff --patch`: a git-compatible patch of an accepted change set,
 * which `git apply` takes on a clean checkout of the base. Text changes are
 * unified hunks (3 lines of context); binary ones (a NUL in the first 8000
 * bytes, git's own test) are "GIT binary patch" literals with full blob ids
 * on the index line; symlinks are mode 120000 blobs of their target; type
 * changes are a deletion and a creation. Directories are not in git: an
 * added empty directory does not appear. */
#ifndef REVRUN_WB_PATCH_H
#define REVRUN_WB_PATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "writeback/scan/scan.h"

int wb_patch_write(FILE *out, const struct wb_scan *s, struct rr_error *err);

/* Where the two sides' bytes come from: a lower and an upper by path, or an
 * export's blobs directory (both fds) by content hash, where the export
 * keeps the base's content beside the new (export.h). Either way each side
 * is hashed against the set while read. */
struct wb_patch_src {
    int base_fd, new_fd;
    bool by_hash;
};

int wb_patch_write_src(FILE *out, const struct wb_changeset *cs, const struct wb_patch_src *src,
                        struct rr_error *err);

/* A path as git writes it after "a/" or "b/": quoted with C escapes (octal
 * for bytes >= 0x80) when it holds a quote, backslash, space, control byte
 * or non-ASCII byte. */
void wb_patch_put_path(FILE *out, const char *prefix, const char *path, size_t len);

#endif
