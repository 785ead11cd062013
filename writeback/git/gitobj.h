/* The agent's commit objects for the walk (gitlog.c): loose ones from the
 * upper's .git/objects (at most WB_LOOSE_MAX compressed, WB_COMMIT_MAX
 * inflated), else out of the packs the agent wrote (gitpack.h, one budget
 * for the whole walk); either way the id of "commit <len>\0<body>" must be
 * the one asked for before libgit2 parses the body, in an in-memory object
 * store that holds nothing else. And whether the checkout's own store holds
 * a commit (then the agent did not make it). */
#ifndef REVRUN_WB_GITOBJ_H
#define REVRUN_WB_GITOBJ_H

#include <stdbool.h>

#include "common/error.h"
#include "writeback/git/git2.h"
#include "writeback/git/gitinfo.h"
#include "writeback/git/gitpackdir.h"

struct wb_gitobj {
    const struct wb_git2 *g2;
    int upper_git, lower_git; /* the upper's .git and the checkout's (not owned) */
    git_odb *odb;
    git_repository *repo;
    struct wb_packdir *packs;  /* the upper's, opened when a commit is first not loose */
    struct wb_packdir *lpacks; /* the checkout's, opened when first asked */
    struct wb_packset set;
};

/* Load libgit2 and make the in-memory store. On failure too, pair with
 * wb_gitobj_close. */
int wb_gitobj_open(struct wb_gitobj *o, int upper_git, int lower_git, struct rr_error *err);
void wb_gitobj_close(struct wb_gitobj *o);

/* The agent's commit hex: 1 and *c (free with g2->git_commit_free), or 0
 * with why it is not listed noted in gi (commits_packed and packed_why, or
 * commits_off_base: not a commit the agent wrote); -1. */
int wb_gitobj_commit(struct wb_gitobj *o, const char *hex, git_commit **c, struct wb_gitinfo *gi,
                     struct rr_error *err);

/* Does the checkout's store hold hex (a loose file, or a name in one of its
 * pack indexes)? */
int wb_gitobj_checkout_has(struct wb_gitobj *o, const char *hex, bool *has, struct rr_error *err);

/* After wb_gitobj_checkout_has said no: is that proof that the checkout
 * does not hold hex? Not when some of its packs were left out (more than
 * WB_PACKS_MAX, or one unreadable) and hex is not loose in the upper: once
 * git gc repacks the whole history into the agent's pack, a checkout
 * commit in a pack revrun did not open would read as the agent's. */
bool wb_gitobj_checkout_lacks(const struct wb_gitobj *o, const char *hex);

#endif
