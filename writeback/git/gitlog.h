/* What the agent did in .git, for the operator's eyes only: how many entries
 * it changed there, and the subjects of the commits it made on top of the
 * checkout's HEAD. Everything read here was written by the agent and is
 * parsed as hostile: files opened beneath the tree without following a
 * symlink, every size capped before and while reading, zlib output bounded,
 * each object's id checked against its content, and the history walked
 * iteratively along first parents for at most WB_COMMITS_WALK steps.
 * Commits are read loose or out of the packs the agent wrote (gitobj.h,
 * its own bounds); a commit the checkout's store already holds is not the
 * agent's and ends the walk. */
#ifndef REVRUN_WB_GITLOG_H
#define REVRUN_WB_GITLOG_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "writeback/base/format.h"
#include "writeback/git/gitinfo.h"
#include "writeback/git/gitinflate.h"

#define WB_SCRATCH_CAP 1000000u     /* entries under .git counted */
#define WB_COUNT_DEPTH 64u          /* directories deep a count goes */
#define WB_COMMITS_WALK 64u         /* commits read at most */
#define WB_LOOSE_MAX (1u << 20)     /* bytes of one compressed object */
#define WB_COMMIT_MAX (256u << 10)  /* bytes of one inflated commit */
#define WB_PACKED_REFS_MAX (64u << 20)

/* Count the non-directory entries beneath the directory dirfd (an explicit
 * stack, no symlink followed), stopping at cap or WB_COUNT_DEPTH (*more). */
int wb_git_count(int dirfd, uint64_t cap, uint64_t *n, bool *more, struct rr_error *err);

/* Count the non-directory entries under the upper's .git into gi->scratch. */
int wb_git_scratch(int upper_fd, struct wb_gitinfo *gi, struct rr_error *err);

/* The agent's commits from the merged HEAD down to the checkout's HEAD. */
int wb_git_commits(int lower_fd, int upper_fd, enum wb_format fmt, struct wb_gitinfo *gi,
                   struct rr_error *err);

/* A worktree checkout (lower_fd, its .git a gitfile) whose main git
 * directory C was shown inside: git_upper_fd is that view's upper (the
 * agent's index, objects, refs). Its entries counted into gi->scratch, and
 * the agent's commits from its worktree's HEAD (C/worktrees/NAME/HEAD, refs
 * in C) down to the checkout's, as wb_git_commits. C is found again by
 * common/gitwt.h: not followed, nothing is read. */
int wb_git_worktree_log(int lower_fd, int git_upper_fd, struct wb_gitinfo *gi,
                        struct rr_error *err);

/* The commit a git directory's HEAD (headpath: "HEAD", or a worktree's
 * "worktrees/NAME/HEAD") names, through at most a few symbolic refs, read
 * as the walk reads the checkout's: 1 and hex, or 0 when there is none to
 * be had (unborn, malformed, packed beyond the cap). */
int wb_git_head(int git_fd, const char *headpath, char hex[41], struct rr_error *err);

/* A ref name git could have written, checked strictly (refs/..., no "..",
 * no component starting with a dot or ending in ".lock"). Pure. */
bool wb_git_refname_ok(const char *name);

/* The id a packed-refs text gives refname, into hex (41 bytes): 1, or 0. Pure. */
int wb_git_packed_ref(const char *text, size_t len, const char *refname, char hex[41]);

#endif
