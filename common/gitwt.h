/* A worktree checkout's git directories, found the way git finds them and
 * followed only when they provably belong to this checkout. `git worktree
 * add` leaves in the checkout a .git file "gitdir: G"; G (the worktree's
 * git directory) holds `commondir`, naming C (the main repository's git
 * directory), and `gitdir`, the back-link to the worktree's .git file. The
 * checkout (and, in engine mode, the tenant who named it) chose every one
 * of these paths, so each is followed only when:
 *
 * - the .git file is a regular file of at most RR_GITFILE_MAX bytes
 *   starting "gitdir: ", and no path holds a control byte or is empty;
 * - G, C and every file read there are reached by openat2 with
 *   RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS (no symlink anywhere on
 *   the way, absolute paths included);
 * - G is a worktree directory of C: C/worktrees/NAME is G itself (device
 *   and inode), NAME being the last component of the path the .git file
 *   names, and C holds HEAD, objects/ and refs/;
 * - G's back-link names this checkout's .git itself (device and inode,
 *   not a string): a copy of a worktree, or a .git file naming another
 *   worktree's directory, is refused;
 * - G, C, the files read and the checkout's .git are owned by the
 *   checkout's owner, and no directory of them may be written by anyone.
 *
 * Anything short of that: not followed, and why[] says why in words an
 * operator acts on. Users: write-back's ignore rules (writeback/git/
 * gitworktree.c) and the profile's decision to show C to the agent
 * (runtime/confine/profile/gitdirs.c). Nothing found here is run or configured. */
#ifndef REVRUN_GITWT_H
#define REVRUN_GITWT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"

#define RR_GITFILE_MAX 4096u /* bytes of a .git file, commondir or gitdir read */

struct rr_gitwt {
    int gitdir_fd; /* O_PATH|O_DIRECTORY of G */
    int common_fd; /* O_PATH|O_DIRECTORY of C */
    struct stat gitdir_st, common_st, dotgit_st;
    char gitdir_text[PATH_MAX];    /* G as the .git file writes it (relative: to the checkout) */
    char commondir_text[PATH_MAX]; /* C as G/commondir writes it (relative: to G) */
    char name[NAME_MAX + 1];       /* G is C/worktrees/NAME */
};

/* The checkout's .git is a gitfile, as `git worktree add` (or a submodule)
 * leaves one: a regular file (no symlink followed) of at most
 * RR_GITFILE_MAX bytes starting "gitdir: ". */
bool rr_gitwt_is_gitfile(int lower_fd);

/* What of C git in a linked worktree never reads (it has its own index,
 * HEAD and per-worktree refs in G) and that holds the other checkouts'
 * uncommitted work: the main checkout's index (names and blob ids of what
 * is staged there) and its stash (the tip and every entry's reflog line).
 * The sandbox hides them (runtime/confine/profile/gitdirs.c) by unlinking
 * them through C's overlay, which leaves a whiteout in C's scratch upper;
 * write-back does not count those whiteouts as the agent's
 * (writeback/git/gitlog.c). NULL-terminated, paths relative to C. */
extern const char *const rr_gitwt_hidden[];

/* The git directories of the checkout at lower_fd (whose .git is a
 * gitfile). 1: followed, *out filled (rr_gitwt_close it); 0: not followed,
 * why[] says why and out holds nothing; -1: out of memory (err). */
int rr_gitwt_open(int lower_fd, struct rr_gitwt *out, char *why, size_t whylen,
                  struct rr_error *err);
void rr_gitwt_close(struct rr_gitwt *w);

/* st is owned by uid (the checkout's owner), of this type (S_IFDIR or
 * S_IFREG), and, a directory, written by no one else (they could change
 * what git reads there): 1, or 0 with why[] saying which is not so. */
int rr_gitwt_owned(uid_t uid, const char *what, const struct stat *st, mode_t type, char *why,
                   size_t whylen);

/* Why the text of a gitdir or commondir file may not be followed, or NULL.
 * Pure. */
const char *rr_gitwt_path_problem(const char *p, size_t len);

/* Join base (absolute) and path (absolute: base is ignored) and resolve
 * ".", ".." and repeated slashes lexically, as the kernel would where no
 * symlink is on the way (rr_gitwt_open made sure of that). 0, or -1 when
 * the result does not fit in len. Pure. */
int rr_path_join_norm(const char *base, const char *path, char *out, size_t len);

#endif
