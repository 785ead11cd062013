/* `revrun apply --commit`: an approved change set (or the part of it the
 * operator chose) as a new commit whose parent is the commit the set was
 * made on (its origin's base), on a new branch, in the repository's object
 * store through libgit2. Nothing of the operator's is touched: no
 * worktree file, no index, no HEAD or current branch, no stash; the tree
 * is built in an in-memory index from the base commit's.
 *
 *  1. refuse, writing nothing, when the set records no base, REPO does not
 *     hold the base commit, the branch exists (or a ref in its way does),
 *     no author or committer is known, a directory libgit2 would write
 *     into is a symlink, or the base commit does not hold a touched path's
 *     base (type, mode, content): the review's checkout differed from its
 *     HEAD there (uncommitted changes, a clean or smudge filter);
 *  2. write the objects: each new file's blob streamed from the export and
 *     hashed against the approved SHA-256 while written, each symlink's
 *     target as a 120000 blob, the trees, the commit;
 *  3. create the branch last (a lock file and a rename: all or nothing).
 *     A failure between 2 and 3 leaves objects no ref reaches, which
 *     `git gc` removes: no branch is made.
 *
 * Modes are git's: 100644, 100755, 120000; a deleted path is gone from the
 * tree; an empty directory is not recorded (git has none). Bytes are
 * committed as they are: no clean filter (.gitattributes eol, LFS) runs.
 * Root on a repository someone else owns writes as that owner
 * (gitowner.h), so their git goes on working. */
#ifndef REVRUN_WB_GITCOMMIT_H
#define REVRUN_WB_GITCOMMIT_H

#include "writeback/apply/apply.h"
#include "writeback/git/gitbase.h"

#define WB_BRANCH_MAX 200 /* bytes of a branch name */

struct wb_commit_opts {
    const char *repo;       /* --to: a repository's worktree, its .git, or a bare one */
    const char *branch;     /* NULL: revrun/<review id>, or revrun/<digest's first 12> */
    const char *author;     /* "Name <email>", or NULL: user.name/user.email of REPO's config */
    const char *committer;  /* the same; NULL: the config's, else the author */
    const char *message;    /* commitmsg.h */
    const char *digest_hex; /* the approved digest (the reflog says it) */
};

struct wb_commit_result {
    struct wb_notes conflicts; /* 1: the paths whose base the commit does not hold */
    char why[512];             /* 1: why refused, otherwise */
    char branch[WB_BRANCH_MAX + 1];
    char commit[WB_OID_HEX];
    bool objects_written; /* -1: objects were written that no ref reaches */
    size_t empty_dirs;    /* new empty directories git does not record */
};

/* 0 committed (res->branch, res->commit); 1 refused, nothing written
 * (res->why, res->conflicts); -1 error (res->objects_written says what it
 * left). */
int wb_commit_apply(const struct wb_changeset *cs, const struct wb_source *src,
                    const struct wb_commit_opts *o, struct wb_commit_result *res,
                    struct rr_error *err);

void wb_commit_result_free(struct wb_commit_result *res);

/* "Name <email>" into its two parts (new strings): false when it is not
 * one (no '<', no '>' at the end, an empty name or email, a '<' or '>' or
 * newline inside). Pure. */
bool wb_ident_parse(const char *s, char **name, char **email);

/* The operator's identity as git finds it outside a repository (user.name
 * and user.email of the global, XDG and system config): 1 and new
 * strings, 0 when either is unset, -1. */
int wb_ident_default(char **name, char **email, struct rr_error *err);

#endif
