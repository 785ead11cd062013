/* What write-back's rules take from a worktree checkout's git directories.
 * They are found, and followed only when they provably belong to this
 * checkout, by the one resolver, common/gitwt.h (no symlink on the way, G is
 * C/worktrees/NAME, G's back-link is this very .git, everything owned by
 * the checkout's owner; the profile uses the same to show C to git
 * inside). Read here, beneath those directories, without a symlink, owned
 * the same way, with the caps of gitfile.h; nothing there is run or
 * configured (gitclass.h).
 *
 * What is kept: the common directory's info/exclude (git reads it there)
 * and the worktree's own index. Anything short of all of that: nothing is
 * kept and the reason is said. */
#ifndef REVRUN_WB_GITWORKTREE_H
#define REVRUN_WB_GITWORKTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

struct wb_gitwt {
    char *exclude; /* the common directory's info/exclude, or NULL: none */
    size_t exclude_len;
    bool exclude_over_cap; /* there, but over WB_GITIGNORE_MAX: not read */
    int index_fd;          /* O_PATH of the worktree's index, or -1: none */
};

/* The git directories of the checkout at lower_fd, whose .git is a gitfile.
 * 1: followed, *out filled (wb_gitwt_free it); 0: not followed, why[] says
 * why (out holds nothing); -1: out of memory. */
int wb_gitwt_open(int lower_fd, struct wb_gitwt *out, char *why, size_t whylen,
                  struct rr_error *err);
void wb_gitwt_free(struct wb_gitwt *w);

/* Why the text of a gitdir/commondir file may not be followed, or NULL.
 * Pure. */
const char *wb_gitwt_path_problem(const char *p, size_t len);

#endif
