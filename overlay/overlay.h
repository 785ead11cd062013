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
 *   overlay_mount_native kernel overlayfs with the hardened options.
 * fuse-overlayfs (overlay/fuse.c), where kernel overlayfs cannot mount:
 *   overlay_fuse_mount   the FUSE mount, made by revrun with its own flags;
 *   overlay_fuse_stage   in the daemon's mount namespace: its layers;
 *   overlay_fuse_exec    the daemon serving the mount's /dev/fuse fd. */
#ifndef REVRUN_OVERLAY_H
#define REVRUN_OVERLAY_H

#include <limits.h>
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

/* Another upper/ and work/ pair (names upper, work) in the store mounted at
 * dirfd/name, for a second view sharing the store's cap. */
int overlay_store_pair(int dirfd, const char *name, const char *upper, const char *work,
                       mode_t upper_mode, uid_t owner, gid_t group, struct overlay_store *s,
                       struct rr_error *err);

/* Idmap from_uid/from_gid (the checkout's owner) to to_uid/to_gid (the
 * container user's host ids) when idmap is set. Returns a detached mount fd
 * (read-only, nosuid, nodev). */
int overlay_lower_open(const char *lower, bool idmap, uid_t from_uid, gid_t from_gid,
                       uid_t to_uid, gid_t to_gid, struct rr_error *err);

/* The same for another tree (a worktree's main git directory): the
 * directory at lower must be the one judged (device and inode); idmapped
 * exactly as the checkout's lower. */
int overlay_lower_open_same(const char *lower, dev_t dev, ino_t ino, bool idmap, uid_t from_uid,
                            gid_t from_gid, uid_t to_uid, gid_t to_gid, struct rr_error *err);

/* Kernel overlayfs over lower/upper/work (O_PATH fds of attached
 * directories). Returns a detached mount fd (nosuid, nodev). */
int overlay_mount_native(int lower_fd, int upper_fd, int work_fd, struct rr_error *err);

/* A user namespace mapping only from -> to (one uid, one gid), held by no
 * process: returns its fd (for setns or MOUNT_ATTR_IDMAP). */
int overlay_idmap_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid, gid_t to_gid,
                         struct rr_error *err);

/* ---- fuse-overlayfs ---- */

struct overlay_fuse_bin {
    int fd; /* O_PATH of the checked file: what is executed */
    char path[PATH_MAX];
};

/* override (an absolute path) or the first of /usr/local/bin, /usr/bin,
 * /bin; a regular executable file owned by root (or the caller) that group
 * and others cannot write. */
int overlay_fuse_find(const char *override, struct overlay_fuse_bin *b, struct rr_error *err);

/* Open /dev/fuse (*dev_fd) and make a detached FUSE mount (nosuid, nodev,
 * default_permissions) that serves only processes whose uids and gids are
 * all uid/gid (in the caller's user namespace). */
int overlay_fuse_mount(uid_t uid, gid_t gid, int *dev_fd, struct rr_error *err);

/* Refuse a lower whose top directory carries fuse-overlayfs' ownership and
 * mode override xattrs (lower_fd: the mount from overlay_lower_open). */
int overlay_fuse_check_lower(int lower_fd, struct rr_error *err);

/* Refuse a lower holding a name fuse-overlayfs takes for a whiteout or an
 * opaque marker (".wh.*", anywhere), which would hide checkout files from
 * the agent (overlay/fuse_markers.c); a lower deeper or larger than the
 * scan's caps is refused too. */
#define OVERLAY_FUSE_SCAN_DEPTH 256        /* directories below the top */
#define OVERLAY_FUSE_SCAN_ENTRIES 2000000u /* names in all */
int overlay_fuse_check_markers(int lower_fd, struct rr_error *err);
/* The same with other caps (tests). */
int overlay_fuse_scan_markers(int lower_fd, unsigned max_depth, uint64_t max_entries,
                              struct rr_error *err);

/* In the daemon's own mount and pid namespaces, still privileged there
 * (overlay/fuse_root.c): pivot into a small read-only root holding only
 * lower_mfd (detached lower) at /lower, store_mfd (a detached clone of the
 * directory holding upper/ and work/) at /store, a fresh /proc, and the
 * host's /usr and loader files read-only; the host's tree is detached. */
int overlay_fuse_stage(int lower_mfd, int store_mfd, struct rr_error *err);

/* Exec fuse-overlayfs in the foreground serving dev_fd over the staged
 * layers, showing every file as squash_uid/squash_gid's unless they are -1;
 * returns only on failure. */
int overlay_fuse_exec(const struct overlay_fuse_bin *b, int dev_fd, int squash_uid,
                      int squash_gid, struct rr_error *err);

#endif
