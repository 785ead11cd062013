/* Internals of apply (apply.c verifies, apply_commit.c stages and commits). */
#ifndef REVRUN_WB_APPLY_INT_H
#define REVRUN_WB_APPLY_INT_H

#include <sys/stat.h>

#include "writeback/apply.h"

enum undo_op { UNDO_MOVED, UNDO_MKDIR, UNDO_EXCHANGED, UNDO_PLACED };

struct undo {
    enum undo_op op;
    size_t i; /* the change */
};

/* What verify found in TARGET at each change's path. */
struct found {
    ino_t ino;
    dev_t dev;
    mode_t mode;
};

struct applier {
    const struct wb_changeset *cs;
    const struct wb_source *src;
    struct wb_apply_result *res;
    int tfd;      /* TARGET */
    int stage_fd; /* the stage directory in TARGET, or -1 */
    struct found *found;
    struct undo *undo;
    size_t n_undo;
    struct rr_error *err;
};

/* The parent directory of path, opened beneath TARGET (O_PATH); *name is
 * the last component. -1 with errno on failure. */
int ap_open_parent(const struct applier *a, const char *path, size_t len, const char **name);

int ap_verify(struct applier *a);
int ap_stage(struct applier *a);
int ap_commit(struct applier *a);
/* Undo the log in reverse; false when a step failed (the stage is kept). */
bool ap_rollback(struct applier *a);
void ap_remove_stage(struct applier *a);

#endif
