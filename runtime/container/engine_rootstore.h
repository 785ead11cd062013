/* An engine container's private upper over its image (the profile's
 * eng.root_upper: a writable directory root, or a host tree): a size-capped
 * tmpfs holding upper/ and work/, owned by the container root's host ids
 * (its own block), mounted on the container's state directory in create's
 * mount namespace as io.revrun.checkout's store is, and unmounted by delete
 * (or sweep, or a create that failed). The image is mounted read-only
 * beneath it; the container's writes, and the mount points the image
 * lacks, land in the upper, never in root.path. */
#ifndef REVRUN_ENGINE_ROOTSTORE_H
#define REVRUN_ENGINE_ROOTSTORE_H

#include "common/error.h"
#include "overlay/overlay.h"
#include "runtime/confine/profile/profile.h"

#define ENGINE_ROOT_STORE "root-store"

/* Nothing (s closed, -1s) when the profile gives the root no upper.
 * image: the root's detached mount (its root's mode is the upper's);
 * bind_fds: the plan's bind sources, for the mount points made in the
 * upper where the image lacks them. */
int engine_root_store_open(const struct profile *p, int state_dir, int image, const int *bind_fds,
                           struct overlay_store *s, struct rr_error *err);

/* Unmount the store when it is mounted there. */
int engine_root_store_unmount(int state_dir, struct rr_error *err);

#endif
