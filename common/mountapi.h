/* The new mount API, called directly: revrun mounts with file descriptors
 * (fsopen/fsconfig/fsmount/move_mount, open_tree, mount_setattr), never by a
 * path string inside a tree the agent could have shaped. */
#ifndef REVRUN_MOUNTAPI_H
#define REVRUN_MOUNTAPI_H

#include <linux/mount.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

int rr_fsopen(const char *fstype, unsigned flags);
int rr_fsconfig(int fd, unsigned cmd, const char *key, const void *value, int aux);
int rr_fsmount(int fd, unsigned flags, unsigned attr);
int rr_move_mount(int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags);
int rr_open_tree(int dfd, const char *path, unsigned flags);
int rr_mount_setattr(int dfd, const char *path, unsigned flags, struct mount_attr *attr);

/* Attach the detached mount mfd onto the object open as target (an O_PATH
 * fd: nothing is re-resolved by name). */
int rr_attach(int mfd, int target, struct rr_error *err);

/* Create a filesystem context of fstype, apply key=value options, create and
 * return a detached mount fd with mount attributes attr. The kernel's own
 * explanation (read from the context) is added to the error. */
int rr_make_fs(const char *fstype, const char *const *opts, size_t n_opts, unsigned attr,
               struct rr_error *err);
/* The same with a "source" (NULL: none). */
int rr_make_fs_src(const char *fstype, const char *source, const char *const *opts,
                   size_t n_opts, unsigned attr, struct rr_error *err);

/* Clone the tree at dfd/path (AT_EMPTY_PATH when path is "") as a detached
 * bind mount with attr set (recursively when recursive). */
int rr_clone_tree(int dfd, const char *path, bool recursive, uint64_t attr, struct rr_error *err);

#endif
