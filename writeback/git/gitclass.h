/* What git would call the change: the checkout's ignore rules (every
 * .gitignore and .git/info/exclude) and its index, read with libgit2 and
 * never through a path the checkout or the agent chose.
 *
 * Two sets of rules: the merged view's (what the agent leaves), which judge
 * an addition or an edit, and the checkout's own, which judge a deletion
 * (the rules that applied while the file existed: a .gitignore inside a
 * directory the agent removed still counts for what it held).
 *
 * libgit2 only ever opens a private shadow repository (one per set) that
 * revrun builds in a fresh directory of its own (mode 0700): the set's
 * ignore files, read as the walk meets them (regular files only, capped),
 * beside a config revrun writes. libgit2 is loaded, and a shadow made, only
 * when a rule may match a changed path (gitmatch.h): most reviews never
 * need either. So no hook, filter, fsmonitor or config-named program of the
 * checkout runs, and no config of the checkout is read at all. The index
 * (the checkout's, and the agent's if it wrote one) is a regular file opened
 * beneath the tree without following a symlink, capped in size, and read by
 * revrun's own bounded reader (gitindex.h), never by libgit2. For a path the
 * checkout has, only the checkout's index says tracked; the agent's can only
 * make a new path count (a file it force-added). */
#ifndef REVRUN_WB_GITCLASS_H
#define REVRUN_WB_GITCLASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "writeback/base/format.h"

#define WB_GITIGNORE_MAX (1u << 20)      /* bytes of one ignore file */
#define WB_GITIGNORE_TOTAL (16u << 20)   /* bytes of all of them, per set */
#define WB_GITIGNORE_FILES 10000u        /* ignore files read, per set */
#define WB_GIT_INDEX_MAX (256ull << 20)  /* bytes of an index */

struct wb_git;

/* A classifier for the repository the checkout at lower_fd holds (the caller
 * checked wb_git_is_repo, or wb_git_is_gitfile: then gitfile), the agent's
 * upper at upper_fd. A gitfile's git directory (a worktree's: its index,
 * and info/exclude in the main repository) is read only when it provably is
 * this checkout's (gitworktree.h); otherwise the rules are the checkout's
 * .gitignore files alone, and with no index every changed checkout file
 * counts as tracked (the note in the summary says why). */
int wb_git_open(int lower_fd, int upper_fd, enum wb_format fmt, bool gitfile, struct wb_git **out,
                struct rr_error *err);
void wb_git_close(struct wb_git *g);

/* The walk enters the merged directory dir[0..len) ("" the top): ufd is the
 * upper's directory, lfd the checkout's when the merged one shows it (-1
 * otherwise), lower_lfd the checkout's directory there whether shown or not
 * (-1: none). Its ignore file joins the merged rules, the checkout's own the
 * checkout's. */
int wb_git_enter(struct wb_git *g, const char *dir, size_t len, int ufd, int lfd, int lower_lfd,
                 struct rr_error *err);

/* The walk leaves the directory it last entered. */
void wb_git_leave(struct wb_git *g);

/* The walk of a checkout subtree the merged view no longer shows enters, and
 * leaves, the checkout's directory lfd at dir[0..len): the checkout's rules
 * only. */
int wb_git_enter_lower(struct wb_git *g, const char *dir, size_t len, int lfd,
                       struct rr_error *err);
void wb_git_leave_lower(struct wb_git *g);

/* Is path[0..len) (a directory when dir) left out of the change: matched by
 * an ignore rule and not tracked? in_lower: the checkout has something
 * there; then only the checkout's index is asked (when it cannot be read,
 * that counts as tracked), else the agent's too. */
int wb_git_ignored(struct wb_git *g, const char *path, size_t len, bool dir, bool in_lower,
                   bool *ignored, struct rr_error *err);

/* The same for a checkout entry the agent deleted, by the checkout's rules
 * (an entry that no index can be asked about counts, as above). */
int wb_git_deleted_ignored(struct wb_git *g, const char *path, size_t len, bool dir,
                           bool *ignored, struct rr_error *err);

/* Why an index could not be read ("" when it could, or was not needed):
 * without it a changed checkout file counts as tracked. */
const char *wb_git_problem(const struct wb_git *g);

/* Have the questions so far cost more than this vet's budget (gitrules.h)?
 * Then every later answer is "not ignored" without asking, and the caller
 * must refuse the change set: past the budget no answer is trusted. */
bool wb_git_over_budget(const struct wb_git *g, uint64_t *used, uint64_t *max);

#endif
