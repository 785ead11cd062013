/* Internals of apply (apply.c verifies, apply_commit.c stages and commits). */
#ifndef REVRUN_WB_APPLY_INT_H
#define REVRUN_WB_APPLY_INT_H

#include <sys/stat.h>

#include "writeback/apply/apply.h"
#include "writeback/apply/journal.h"

/* What verify found in TARGET at each change's path; uid and gid are the
 * owner the path keeps or gets (its own, or for a new one its directory's). */
struct found {
    ino_t ino;
    dev_t dev;
    mode_t mode;
    uid_t uid;
    gid_t gid;
};

struct applier {
    const struct wb_changeset *cs;
    const struct wb_source *src;
    struct wb_apply_result *res;
    int tfd;      /* TARGET */
    int stage_fd; /* the stage directory in TARGET, or -1 */
    const struct wb_target *target;
    struct found *found;
    struct wb_step *steps; /* the commit's log, in memory too */
    size_t n_steps;
    struct rr_error *err;
    bool keep_owner; /* run as root: what is written gets found[].uid/gid */
};

/* The commit's steps, counted before it starts (for the crash hook). */
size_t ap_count_steps(const struct applier *a);

int ap_verify(struct applier *a);
/* After verify refused: 1 when TARGET holds every change's new state. */
int ap_already_applied(struct applier *a);
/* Give what was just written at dirfd/name (or fd, when >= 0) change i's owner. */
int ap_own(struct applier *a, size_t i, int fd, int dirfd, const char *name);
int ap_stage(struct applier *a);
int ap_commit(struct applier *a);
/* Undo the log in reverse; false when a step failed (the stage is kept). */
bool ap_rollback(struct applier *a);
void ap_remove_stage(struct applier *a);

#endif
