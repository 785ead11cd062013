/* Kernel overlayfs, mounted by the container's pid 1 inside the container's
 * user namespace (so the mount carries no host privilege; the markers it
 * writes are user.overlay.* — the "overlay-userxattr" format). Options:
 *   userxattr           required in a user namespace;
 *   redirect_dir=nofollow  plain "off" would still follow a redirect xattr
 *                       planted in a layer;
 *   metacopy=off, index=off  no metadata-only copies, no index dir;
 *   volatile            the upper is thrown away, so no syncfs on unmount and
 *                       no fsync per copy-up.
 * Layers are named by /proc/self/fd/N, so a checkout path holding ',' ':'
 * '=' spaces or newlines needs no escaping. */
#include <errno.h>
#include <stdio.h>

#include "overlay/overlay.h"
#include "common/mountapi.h"

int overlay_mount_native(int lower_fd, int upper_fd, int work_fd, struct rr_error *err)
{
    char lower[64], upper[64], work[64];
    const char *opts[] = {
        lower, upper, work, "userxattr", "redirect_dir=nofollow", "metacopy=off", "index=off",
        "volatile",
    };
    int mfd;

    snprintf(lower, sizeof(lower), "lowerdir=/proc/self/fd/%d", lower_fd);
    snprintf(upper, sizeof(upper), "upperdir=/proc/self/fd/%d", upper_fd);
    snprintf(work, sizeof(work), "workdir=/proc/self/fd/%d", work_fd);
    mfd = rr_make_fs("overlay", opts, sizeof(opts) / sizeof(opts[0]),
                     MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
    if (mfd < 0)
        return rr_wrap(err, "native overlay");
    return mfd;
}
