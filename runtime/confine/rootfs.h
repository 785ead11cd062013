/* Assembling the container's root from the profile's mount plan, inside the
 * container's user and mount namespaces, and pivoting into it. Every mount
 * is made with the fd-based API onto a target resolved inside the new root
 * (openat2 RESOLVE_IN_ROOT), so no symlink can carry a mount outside it. */
#ifndef REVRUN_ROOTFS_H
#define REVRUN_ROOTFS_H

#include "common/error.h"
#include "runtime/confine/profile.h"

struct rootfs_fds {
    int mountpoint; /* O_PATH of the bundle's root.path: where the new root is attached */
    int lower_mfd;  /* the checkout: a detached mount from overlay_lower_open */
    int checkout_mfd; /* or its view made already (fuse backend), attached as is; -1: none */
    int upper_fd;
    int work_fd;
    int out_mfd; /* the /out tmpfs (MOUNT_OUT), a detached mount of the monitor's; -1: none */
};

/* On success the process is chrooted (pivoted) into the new root with cwd
 * "/", and the old root is gone from its mount namespace. */
int rootfs_enter(const struct profile *p, struct rootfs_fds *fds, struct rr_error *err);

#endif
