/* Reading an upper against its lower: the walk, and the result it leaves for
 * the set-level rules (rules/rules.c) and for export, patch and writeback.
 *
 * base(P) is what the checkout has at P (the lower, read without following
 * any symlink); new(P) is what the merged view shows. The walk visits only
 * the upper, and the lower paths it touches: the counterpart of each upper
 * entry, and the lower subtrees a whiteout, an opaque directory or a
 * non-directory over a directory hides. So its cost grows with the change,
 * not with the checkout. */
#ifndef REVRUN_WB_SCAN_H
#define REVRUN_WB_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle/config.h"
#include "common/error.h"
#include "writeback/changeset/changeset.h"
#include "writeback/base/deny.h"
#include "writeback/base/format.h"

/* The walk stops (and refuses) after this many entries per allowed change:
 * an upper full of unchanged copy-ups is bounded too. */
#define WB_WALK_FACTOR 10
/* Directory fds held at once grow with depth: whatever the policy's depth
 * cap, the walk never holds more nested directories than this. */
#define WB_DEPTH_HARD_MAX 256
#define WB_DEPTH_HARD_TEXT "more nested directories than the walk's hard limit of 256"

struct wb_scan_input {
    int lower_fd; /* the checkout; any fd of the directory (O_PATH is fine) */
    int upper_fd;
    enum wb_format format;
    const struct rr_writeback_policy *pol;
    const struct wb_deny *deny; /* NULL: no canary */
    /* a worktree checkout whose main git directory was shown inside: that
     * view's upper, read only to count the agent's churn and list its
     * commits (wb_git_worktree_log), never part of the change set */
    bool has_git_upper;
    int git_upper_fd;
};

enum wb_upper_kind { WB_U_DIR, WB_U_FILE, WB_U_SYMLINK, WB_U_WHITEOUT };

/* Every entry the upper holds (markers resolved), for merged-view lookups. */
struct wb_upper_entry {
    char *path;
    size_t len;
    enum wb_upper_kind kind;
    bool opaque;
    char *target;
};

struct wb_scan {
    struct wb_changeset cs; /* sorted by path once wb_scan returns */
    struct wb_upper_entry *idx;
    size_t n_idx, cap_idx;
    int lower_fd, upper_fd; /* directory fds, owned */
    enum wb_format format;
    const struct rr_writeback_policy *pol;
    const struct wb_deny *deny;
    bool stopped; /* a cap stopped the walk: the set is refused and partial */
};

int wb_scan_run(const struct wb_scan_input *in, struct wb_scan *out, struct rr_error *err);
void wb_scan_free(struct wb_scan *s);

/* The upper entry at path, or NULL. */
const struct wb_upper_entry *wb_scan_find(const struct wb_scan *s, const char *path, size_t len);

#endif
