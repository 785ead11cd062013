/* Reading the small files of a checkout's .git and its ignore files, as the
 * hostile input they are: beneath a directory fd, no symlink followed, only
 * regular files, at most a cap of bytes (checked while reading), and the
 * merged view's answer (the upper's file, its whiteout, or the checkout's). */
#ifndef REVRUN_WB_GITFILE_H
#define REVRUN_WB_GITFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "common/error.h"
#include "writeback/base/format.h"

/* Open the regular file dirfd/path for reading (O_PATH first, so no fifo
 * or device is ever opened; beneath dirfd, no symlink followed): 1 with
 * *fd and *st, 0 when there is no regular file there, or -1. */
int wb_git_open_file(int dirfd, const char *path, int *fd, struct stat *st, struct rr_error *err);

/* Read the regular file dirfd/path (path beneath dirfd) whole. Returns 1 and
 * a new NUL-terminated buffer, 0 when there is no regular file there (absent,
 * a symlink on the way, another type), or -1 (E2BIG past max bytes). */
int wb_git_read(int dirfd, const char *path, size_t max, char **buf, size_t *len,
                struct rr_error *err);

/* The same for the file an O_PATH fd holds (read through /proc/self/fd, so
 * no path is resolved again): 0 when it is not a regular file. */
int wb_git_read_fd(int pfd, size_t max, char **buf, size_t *len, struct rr_error *err);

/* What the merged view shows as NAME in a directory: ufd is the upper's
 * directory (-1: none there), lfd the checkout's when the merged directory
 * shows it (-1: hidden or none). An upper whiteout (a 0/0 device, or
 * fuse-overlayfs' .wh.NAME) hides the checkout's file; anything in the upper
 * that is not a regular file counts as no file. Same returns as above. */
int wb_git_read_merged(int ufd, int lfd, enum wb_format fmt, const char *name, size_t max,
                       char **buf, size_t *len, struct rr_error *err);

/* The checkout holds a git directory as git would take one: .git is a
 * directory (not a symlink, not a gitfile) with HEAD, objects/ and refs/. */
bool wb_git_is_repo(int lower_fd);

#define WB_GITFILE_MAX 4096u /* bytes of a gitfile read */

/* The checkout's .git is a gitfile, as `git worktree add` (or a submodule)
 * leaves one: a regular file (no symlink followed) of at most
 * WB_GITFILE_MAX bytes starting "gitdir: ". Only that is looked at: the
 * path it names is the checkout's to choose and lies outside it, so revrun
 * never opens it (gitclass.h). */
bool wb_git_is_gitfile(int lower_fd);

#endif
