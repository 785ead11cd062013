/* The checkout in the container's root (see rootfs_checkout.h): the
 * overlay over the lower, and a worktree's main git directory. */
#include "runtime/confine/rootfs_checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"

#define STAGING_LOWER ".revrun-lower"
#define STAGING_GIT_LOWER ".revrun-git-lower"

/* ---- the checkout ---- */

static int attach_checkout(int root, const struct profile *p, int view, struct rr_error *err)
{
    _cleanup_close_ int dst = rr_mkdir_p_in_root(root, p->checkout_path, 0755, err);

    if (dst < 0 || rr_attach(view, dst, err) < 0)
        return rr_wrap(err, "checkout at %s", p->checkout_path);
    return 0;
}

/* The overlay over lower (taken), upper and work, the lower staged at
 * stage_parent/name: the lower is a detached mount made outside this user
 * namespace, and the kernel only stacks an overlay on layers attached in
 * the caller's own mount namespace, so it is attached there first and
 * detached again once the overlay holds its private copy. Returns the
 * overlay (detached). */
static int overlay_stack(int stage_parent, const char *name, int *lower_mfd, int upper_fd,
                         int work_fd, const char *what, struct rr_error *err)
{
    _cleanup_close_ int staging = -1;
    _cleanup_close_ int ovl = -1;
    char proc_path[64];

    if (mkdirat(stage_parent, name, 0700) < 0)
        return rr_fail(err, errno, "%s: staging directory", what);
    staging = openat(stage_parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (staging < 0)
        return rr_fail(err, errno, "%s: staging directory", what);
    if (rr_attach(*lower_mfd, staging, err) < 0)
        return rr_wrap(err, "%s: attach lower", what);
    close(*lower_mfd);
    *lower_mfd = -1;
    close(staging);
    staging = openat(stage_parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (staging < 0)
        return rr_fail(err, errno, "%s: open lower", what);
    ovl = overlay_mount_native(staging, upper_fd, work_fd, err);
    if (ovl < 0)
        return rr_wrap(err, "%s", what);
    snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", staging);
    if (umount2(proc_path, MNT_DETACH) < 0)
        return rr_fail(err, errno, "%s: detach staging lower", what);
    close(staging);
    staging = -1;
    if (unlinkat(stage_parent, name, AT_REMOVEDIR) < 0)
        return rr_fail(err, errno, "%s: remove staging directory", what);
    return rr_steal_fd(&ovl);
}

static int overlay_view(int stage_parent, const struct profile *p, struct rootfs_fds *fds,
                        struct rr_error *err)
{
    char what[PATH_MAX + 16];

    snprintf(what, sizeof(what), "checkout %s", p->lower);
    return overlay_stack(stage_parent, STAGING_LOWER, &fds->lower_mfd, fds->upper_fd,
                         fds->work_fd, what, err);
}

/* The paths of C the profile hides (git_common.hidden), made absent in the
 * overlay ovl before the agent runs: unlinked through it, so overlayfs
 * leaves a whiteout in the scratch upper and C is untouched. Each parent
 * is reached without a symlink or a step out of C (C is the operator's,
 * shaped by anyone who wrote in the repository). A path that is not there
 * is fine; anything else that keeps it visible refuses the review. */
static int git_common_hide(int ovl, const struct profile *p, struct rr_error *err)
{
    for (const char *const *h = p->git_common.hidden; h != NULL && *h != NULL; h++) {
        char dir[PATH_MAX];
        const char *slash = strrchr(*h, '/'), *name = slash != NULL ? slash + 1 : *h;
        _cleanup_close_ int dfd = -1;

        snprintf(dir, sizeof(dir), "%.*s", slash != NULL ? (int)(slash - *h) : 1,
                 slash != NULL ? *h : ".");
        dfd = rr_open_in_root(ovl, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, true);
        if (dfd < 0) {
            if (errno == ENOENT)
                continue;
            return rr_fail(err, errno, "hide %s", *h);
        }
        if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
            return rr_fail(err, errno, "hide %s", *h);
    }
    return 0;
}

/* C/worktrees holds every checkout's G (their index, HEAD, rebase state
 * and host paths): inside, it is an empty read-only tmpfs with only this
 * checkout's G (git_common.keep) bound back in from the overlay, so what
 * git writes there still lands in scratch. Bound by fd, before the agent
 * runs; a worktree the operator adds meanwhile never shows. */
static int git_common_worktrees(int ovl, const struct profile *p, struct rr_error *err)
{
    static const char *const opts[] = {"mode=0755", "size=64k", "nr_inodes=8"};
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    _cleanup_close_ int wt = -1, self = -1, clone = -1, tmp = -1, slot = -1;

    if (p->git_common.keep[0] == '\0' || strchr(p->git_common.keep, '/') != NULL ||
        strcmp(p->git_common.keep, ".") == 0 || strcmp(p->git_common.keep, "..") == 0)
        return rr_fail(err, EINVAL, "worktrees: no name of this checkout's own");
    wt = rr_open_in_root(ovl, "worktrees", O_PATH | O_DIRECTORY | O_CLOEXEC, true);
    if (wt < 0)
        return rr_fail(err, errno, "worktrees");
    self = rr_open_in_root(wt, p->git_common.keep, O_PATH | O_DIRECTORY | O_CLOEXEC, true);
    if (self < 0)
        return rr_fail(err, errno, "worktrees/%s", p->git_common.keep);
    clone = rr_clone_tree(self, "", false, 0, err);
    if (clone < 0)
        return rr_wrap(err, "worktrees/%s", p->git_common.keep);
    tmp = rr_make_fs("tmpfs", opts, 3, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                     err);
    if (tmp < 0)
        return rr_wrap(err, "worktrees: the tmpfs over it");
    if (mkdirat(tmp, p->git_common.keep, 0755) < 0)
        return rr_fail(err, errno, "worktrees: the tmpfs over it: %s", p->git_common.keep);
    slot = openat(tmp, p->git_common.keep, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (slot < 0)
        return rr_fail(err, errno, "worktrees: the tmpfs over it: %s", p->git_common.keep);
    if (rr_mount_setattr(tmp, "", AT_EMPTY_PATH, &ro) < 0)
        return rr_fail(err, errno, "worktrees: the tmpfs over it read-only");
    if (rr_attach(tmp, wt, err) < 0)
        return rr_wrap(err, "worktrees: the tmpfs over it");
    if (rr_attach(clone, slot, err) < 0)
        return rr_wrap(err, "worktrees/%s: bound back", p->git_common.keep);
    return 0;
}

/* A worktree's main git directory, at the place the profile gave it (made
 * in this root, or in a tmpfs of the config: git_common_place), as an
 * overlay of its own: what git inside writes there lands in the store.
 * Without the layers (the monitor runs fuse-overlayfs for the checkout and
 * said so), the place is an empty directory, for the Landlock rule. */
int rootfs_mount_git_common(int root, const struct profile *p, struct rootfs_fds *fds,
                            struct rr_error *err)
{
    _cleanup_close_ int dst = -1;
    _cleanup_close_ int ovl = -1;

    if (!p->git_common.shown)
        return 0;
    if (fds->git_lower_mfd >= 0) {
        ovl = overlay_stack(root, STAGING_GIT_LOWER, &fds->git_lower_mfd, fds->git_upper_fd,
                            fds->git_work_fd, "the worktree's git directory", err);
        if (ovl < 0)
            return -1;
    }
    dst = rr_mkdir_p_in_root(root, p->git_common.dest, 0755, err);
    if (dst < 0 || (ovl >= 0 && rr_attach(ovl, dst, err) < 0))
        return rr_wrap(err, "the worktree's git directory at %s", p->git_common.dest);
    if (ovl >= 0 && (git_common_hide(ovl, p, err) < 0 || git_common_worktrees(ovl, p, err) < 0))
        return rr_wrap(err, "the worktree's git directory at %s", p->git_common.dest);
    return 0;
}

int rootfs_mount_checkout(int root, const struct profile *p, struct rootfs_fds *fds,
                          struct rr_error *err)
{
    _cleanup_close_ int ovl = -1;

    if (fds->checkout_mfd >= 0) { /* fuse-overlayfs serves it already (runtime/backend.c) */
        _cleanup_close_ int view = rr_steal_fd(&fds->checkout_mfd);
        return attach_checkout(root, p, view, err);
    }
    ovl = overlay_view(root, p, fds, err);
    if (ovl < 0)
        return -1;
    return attach_checkout(root, p, ovl, err);
}

/* Engine mode (MOUNT_CHECKOUT): the image's root may be read-only and is
 * the image's to keep clean, so the lower is staged on a scratch tmpfs
 * attached at the destination, under the overlay that then covers it. The
 * overlay carries the bind's own attributes (read-only when it was ro). */
int rootfs_mount_checkout_engine(int root, const struct profile *p, const struct mount_plan *m,
                                 struct rootfs_fds *fds, struct rr_error *err)
{
    static const char *const opts[] = {"size=4k", "nr_inodes=4", "mode=0700"};
    struct mount_attr attr = {.attr_set = m->attr};
    _cleanup_close_ int dst = rr_mkdir_p_in_root(root, m->destination, 0755, err);
    _cleanup_close_ int scratch = -1;
    _cleanup_close_ int stage = -1;
    _cleanup_close_ int ovl = -1;
    _cleanup_close_ int top = -1;

    if (dst < 0)
        return rr_wrap(err, "checkout at %s", m->destination);
    if (fds->checkout_mfd >= 0) { /* fuse-overlayfs serves it already */
        ovl = rr_steal_fd(&fds->checkout_mfd);
        if (rr_mount_setattr(ovl, "", AT_EMPTY_PATH, &attr) < 0)
            return rr_fail(err, errno, "checkout at %s: mount attributes", m->destination);
        if (rr_attach(ovl, dst, err) < 0)
            return rr_wrap(err, "checkout at %s", m->destination);
        return 0;
    }
    scratch = rr_make_fs("tmpfs", opts, 3,
                         MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    if (scratch < 0 || rr_attach(scratch, dst, err) < 0)
        return rr_wrap(err, "checkout at %s: staging tmpfs", m->destination);
    stage = openat(scratch, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (stage < 0)
        return rr_fail(err, errno, "checkout at %s: staging tmpfs", m->destination);
    ovl = overlay_view(stage, p, fds, err);
    if (ovl < 0)
        return -1;
    if (rr_mount_setattr(ovl, "", AT_EMPTY_PATH, &attr) < 0)
        return rr_fail(err, errno, "checkout at %s: mount attributes", m->destination);
    top = rr_open_in_root(root, m->destination, O_PATH | O_DIRECTORY | O_NOFOLLOW, true);
    if (top < 0)
        return rr_fail(err, errno, "checkout at %s", m->destination);
    if (rr_attach(ovl, top, err) < 0)
        return rr_wrap(err, "checkout at %s", m->destination);
    return 0;
}
