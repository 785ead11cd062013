/* Filesystem helpers that work relative to directory fds and never follow a
 * symlink out of the tree they were given. */
#ifndef REVRUN_FSUTIL_H
#define REVRUN_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* openat2 with RESOLVE_IN_ROOT|RESOLVE_NO_MAGICLINKS (|RESOLVE_NO_SYMLINKS when
 * no_symlinks): `path` is resolved as if rootfd were "/", so neither ".." nor
 * an absolute symlink can leave it. Returns the fd or -1 with errno. */
int rr_open_in_root(int rootfd, const char *path, int flags, bool no_symlinks);

/* mkdir -p of `path` inside rootfd (each component created with `mode` when
 * missing, resolved in root). Returns an O_PATH|O_DIRECTORY fd of the last
 * component, or -1 with *err filled. */
int rr_mkdir_p_in_root(int rootfd, const char *path, mode_t mode, struct rr_error *err);

/* Create the parent directories of `path` inside rootfd and an empty regular
 * file (mode) at `path` if nothing is there; returns an O_PATH fd of it. */
int rr_touch_in_root(int rootfd, const char *path, mode_t mode, struct rr_error *err);

/* Write buf to dirfd/name through a temporary file and rename: readers see
 * the old or the new content, never a part. */
int rr_write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
                    struct rr_error *err);

/* Read a regular file (not following a final symlink) of at most max bytes;
 * *out is NUL-terminated and the caller frees it. */
int rr_read_file(int dirfd, const char *name, size_t max, char **out, size_t *len,
                 struct rr_error *err);

/* Remove dirfd/name and everything below it without following symlinks.
 * Directories the owner made unreadable are made accessible first. Depth is
 * capped (this removes revrun's own trees, not attacker-deep ones).
 * ENOENT for `name` itself is success. */
int rr_remove_tree(int dirfd, const char *name, struct rr_error *err);

/* write() all of buf, retrying on EINTR and short writes. */
int rr_write_all(int fd, const void *buf, size_t len);

/* Open dirfd/path again (O_PATH|O_DIRECTORY|O_NOFOLLOW) and check it is the
 * same directory as like_fd (device and inode). Used after entering a new
 * mount namespace, where fds opened before still point at the old one's
 * mounts and cannot serve as mount targets or overlay layers there. */
int rr_reopen_same(int dirfd, const char *path, int like_fd, struct rr_error *err);

/* Close every fd >= 3 not listed in keep (n entries; -1 entries ignored). */
void rr_close_all_except(const int *keep, size_t n);

#endif
