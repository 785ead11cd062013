/* The checkout's part of assembling the container's root (rootfs.h): the
 * overlay over the read-only lower attached where the agent sees the
 * checkout, for a review and for an engine's io.revrun.checkout mount, and
 * a worktree's main git directory where the profile shows it. Called by
 * rootfs.c only. */
#ifndef REVRUN_ROOTFS_CHECKOUT_H
#define REVRUN_ROOTFS_CHECKOUT_H

#include "common/error.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/confine/rootfs.h"

/* A review's checkout at p->checkout_path: the view fuse-overlayfs made
 * already (fds->checkout_mfd), else a kernel overlay of fds' layers. */
int rootfs_mount_checkout(int root, const struct profile *p, struct rootfs_fds *fds,
                          struct rr_error *err);
/* The main git directory at p->git_common.dest, when the profile shows it. */
int rootfs_mount_git_common(int root, const struct profile *p, struct rootfs_fds *fds,
                            struct rr_error *err);
/* Engine mode: the MOUNT_CHECKOUT mount m of the plan. */
int rootfs_mount_checkout_engine(int root, const struct profile *p, const struct mount_plan *m,
                                 struct rootfs_fds *fds, struct rr_error *err);

#endif
