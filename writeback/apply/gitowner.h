/* Files `apply --commit` makes in a repository are its owner's, as if the
 * owner had run git: when revrun runs as root on a repository someone
 * else owns, libgit2 writes with that owner's filesystem ids (setfsuid and
 * setfsgid: this thread only; root's file capabilities go with them, so
 * nothing is written the owner could not write), and revrun's own reads
 * (the export's blobs, root's 0700) are made as root in between.
 *
 * And no directory libgit2 writes into is a symlink: objects/ and each of
 * its fan-out directories, refs/heads/ and logs/refs/heads/ down to the
 * branch (the repository may be a clone the operator did not make). */
#ifndef REVRUN_WB_GITOWNER_H
#define REVRUN_WB_GITOWNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

struct wb_owner {
    bool active; /* we are root, the repository is someone else's */
    uid_t uid;
    gid_t gid;
};

/* The owner of the git directory gitdir, active when that is not us (root). */
int wb_owner_of(const char *gitdir, struct wb_owner *o, struct rr_error *err);

/* Write as the owner from now on (no-op when not active). */
int wb_owner_enter(const struct wb_owner *o, struct rr_error *err);
/* Back to our own ids. */
void wb_owner_leave(const struct wb_owner *o);

/* In the common git directory, the directories a loose object and the
 * branch refname (its ref and reflog) are written into: 1 when none is
 * anything but a directory (absent is fine), 0 with why, -1. */
int wb_commit_dirs_ok(const char *commondir, const char *refname, char *why, size_t whylen,
                      struct rr_error *err);

#endif
