/* Assembling the container's root from the profile's mount plan, inside the
 * container's user and mount namespaces, and pivoting into it. Every mount
 * is made with the fd-based API onto a target resolved inside the new root
 * (openat2 RESOLVE_IN_ROOT), so no symlink can carry a mount outside it. */
#ifndef REVRUN_ROOTFS_H
#define REVRUN_ROOTFS_H

#include "common/error.h"
#include "runtime/confine/profile/profile.h"

struct rootfs_fds {
    int mountpoint; /* O_PATH of the bundle's root.path: where the new root is attached */
    int lower_mfd;  /* the checkout: a detached mount from overlay_lower_open */
    int checkout_mfd; /* or its view made already (fuse backend), attached as is; -1: none */
    int upper_fd;
    int work_fd;
    int home_fd;    /* O_PATH of the HOME store (profile home_store), or -1 */
    int out_mfd; /* the /out tmpfs (MOUNT_OUT), a detached mount of the monitor's; -1: none */
    /* a worktree's main git directory (profile git_common): its detached
     * lower and its upper/work pair in the store; -1: not shown */
    int git_lower_mfd;
    int git_upper_fd;
    int git_work_fd;
    /* engine mode: the image (root.path) as a detached mount, and per mount
     * of the plan the bind source opened by the caller (-1: none) */
    int root_mfd;
    const int *bind_fds;
    /* the image's private upper (profile eng.root_upper): the root is an
     * overlay of root_mfd (read-only) under it; -1: root_mfd as it is */
    int root_upper_fd;
    int root_work_fd;
};

/* On success the process is chrooted (pivoted) into the new root with cwd
 * "/", and the old root is gone from its mount namespace. */
int rootfs_enter(const struct profile *p, struct rootfs_fds *fds, struct rr_error *err);

/* Engine mode, in two halves around the createContainer hooks (which run
 * in the container's namespaces before the pivot): assemble (returns the
 * new root's fd), then pivot into it. */
int rootfs_assemble_engine(const struct profile *p, struct rootfs_fds *fds, struct rr_error *err);
int rootfs_pivot_engine(const struct profile *p, int root, struct rr_error *err);

/* Host side, before the user namespace: the mount points the plan needs in
 * the image that the image lacks, made as the caller inside root (resolved
 * beneath it: the image's symlinks cannot lead out). Destinations below
 * another mount of the plan are left to the container. root is the image,
 * or (lower >= 0: the image) the private upper over it, where only what
 * the image lacks is made. */
int rootfs_premake_engine(const struct profile *p, int root, int lower, const int *bind_fds,
                          struct rr_error *err);

#endif
