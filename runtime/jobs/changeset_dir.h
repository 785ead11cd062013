/* An exported change set as the operator names it: the export itself
 * (DIR/manifest.json) or the review's --out (DIR/changeset/manifest.json),
 * for `apply` and for `diff`, which reads one as it reads a live bundle. */
#ifndef REVRUN_CHANGESET_DIR_H
#define REVRUN_CHANGESET_DIR_H

#include <stdbool.h>

#include "common/error.h"
#include "writeback/changeset/changeset.h"
#include "writeback/base/hash.h"

#define REVIEW_CHANGESET_DIR "changeset" /* where review exports, in OUT */

/* The set's directory, opened: DIR when it holds a manifest, else
 * DIR/changeset when that does (no symlink followed there). */
int changeset_dir_open(const char *path, struct rr_error *err);

/* Does the operand of `diff` name such a directory rather than a
 * container's ID? A path with a '/' always does (no ID holds one); a bare
 * name does when it is a directory holding a set. */
bool changeset_dir_named(const char *operand);

/* Load the set at dfd and run apply's recheck over it. */
int changeset_dir_load(int dfd, struct wb_changeset *cs, unsigned char digest[WB_SHA256_LEN],
                       struct rr_error *err);

enum changeset_view { CHANGESET_TEXT, CHANGESET_JSON, CHANGESET_PATCH };

/* `revrun diff [--json|--patch] DIR`: the report or the patch of an
 * exported set, to stdout. Returns the command's exit status. */
int changeset_dir_diff(const char *path, enum changeset_view view);

#endif
