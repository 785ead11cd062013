/* Making the lower+upper view. overlay/ knows layers and mounts, nothing of
 * agents or policy: the runtime tells it sizes, owners and where.
 *
 * Host side (in revrun's monitor, which holds the store's mount namespace
 * for the bundle's whole life):
 *   overlay_store_mount  a size-capped tmpfs holding upper/ and work/: the
 *                        agent's writes hit ENOSPC at the cap, the host disk
 *                        never sees them, and the store vanishes with the
 *                        monitor's mount namespace, whatever way it ends.
 *   overlay_lower_open   the checkout as a detached read-only mount,
 *                        idmapped when revrun runs as root.
 * Container side (in the container's user and mount namespaces):
 *   overlay_mount_native kernel overlayfs with the hardened options. */
#ifndef REVRUN_OVERLAY_H
#define REVRUN_OVERLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct overlay_store {
    int upper_fd; /* O_PATH|O_DIRECTORY */
    int work_fd;  /* O_PATH|O_DIRECTORY */
};

/* Mount the store on dirfd/name (an empty directory). owner/group: who owns
 * upper/ and work/ (the container user's host ids), or -1 to keep the
 * mounter's; upper_mode: the lower root's permission bits. */
int overlay_store_mount(int dirfd, const char *name, uint64_t size, mode_t upper_mode,
                        uid_t owner, gid_t group, struct overlay_store *s, struct rr_error *err);
void overlay_store_close(struct overlay_store *s);

/* Idmap from_uid/from_gid (the checkout's owner) to to_uid/to_gid (the
 * container user's host ids) when idmap is set. Returns a detached mount fd
 * (read-only, nosuid, nodev). */
int overlay_lower_open(const char *lower, bool idmap, uid_t from_uid, gid_t from_gid,
                       uid_t to_uid, gid_t to_gid, struct rr_error *err);

/* Kernel overlayfs over lower/upper/work (O_PATH fds of attached
 * directories). Returns a detached mount fd (nosuid, nodev). */
int overlay_mount_native(int lower_fd, int upper_fd, int work_fd, struct rr_error *err);

#endif
