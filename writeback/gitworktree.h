/* A worktree checkout's git directories (`git worktree add` leaves a .git
 * file "gitdir: PATH"), found the way git finds them and followed only when
 * they provably belong to this checkout, since the checkout (and, in engine
 * mode, the tenant who named it) chose the path:
 *
 * - PATH (absolute, or relative to the checkout) and the names in the
 *   worktree's git directory are walked by openat2 with RESOLVE_NO_SYMLINKS
 *   | RESOLVE_NO_MAGICLINKS; a control byte or an empty path is refused;
 * - the directory is a worktree's: it holds `commondir` (the main
 *   repository's git directory, relative to it or absolute) and `gitdir`,
 *   the back-link git keeps to the worktree's .git file, which must be the
 *   very inode of this checkout's .git (device and inode, not a string);
 * - both git directories, and every file read in them, are owned by the
 *   checkout's owner (no one else may write the rules that hide a file);
 *   a directory anyone may write is refused;
 * - files are regular, read beneath their directory with the caps of
 *   gitfile.h; nothing there is run or configured (gitclass.h).
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
