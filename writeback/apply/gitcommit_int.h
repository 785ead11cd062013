/* Internals of apply --commit (gitcommit.c opens and refuses, commits and
 * makes the branch; gitcommit_tree.c checks the bases and builds the tree). */
#ifndef REVRUN_WB_GITCOMMIT_INT_H
#define REVRUN_WB_GITCOMMIT_INT_H

#include "writeback/apply/gitcommit.h"
#include "writeback/apply/gitowner.h"
#include "writeback/git/git2.h"

struct committer {
    const struct wb_git2 *g2;
    const struct wb_changeset *cs;
    const struct wb_source *src;
    const struct wb_commit_opts *o;
    struct wb_commit_result *res;
    struct wb_owner owner;
    git_repository *repo;
    git_commit *base;
    git_tree *base_tree;
    git_signature *author, *committer;
    char refname[WB_BRANCH_MAX + 16];
    struct rr_error *err;
};

/* Does the base commit hold every change's base? 0 yes, 1 no (conflicts
 * noted), -1. */
int gc_check_bases(struct committer *c);

/* The base tree with the changes, written: 0 and *tree, -1. */
int gc_build_tree(struct committer *c, git_oid *tree);

/* libgit2's failure as err. */
int gc_fail(struct committer *c, const char *what);

#endif
