/* The fuse-overlayfs daemon's root. The daemon serves every byte the agent
 * writes, so it gets no more of the host than it needs: in its own mount
 * namespace it pivots into a small read-only tmpfs holding
 *   /lower            the detached lower, read-only (overlay_lower_open)
 *   /store            upper/ and work/ in one mount (fuse-overlayfs renames
 *                     between them, which two bind mounts would refuse)
 *   /proc             a fresh procfs of its own pid namespace (it reaches
 *                     xattrs through /proc/self/fd and reads
 *                     /proc/sys/kernel/overflowuid, so no subset=pid)
 *   /usr              the host's, read-only: the loader and libraries the
 *                     binary needs (it is run from the fd revrun checked,
 *                     so its own path need not be here)
 *   /lib*, /bin, /sbin as the host has them: a symlink into /usr made
 *                     again, a directory bound read-only
 *   /etc/ld.so.cache  the loader's index, read-only, where the host has one
 * and no /dev: it serves the /dev/fuse fd it inherited. The old root is
 * detached, so no host path is reachable (not through /proc/PID/root
 * either). Every mount is made from fds (open_tree, fsmount, move_mount). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"

/* Where the new root is attached before the pivot (in the daemon's own
 * mount namespace; the host's /tmp is not touched). */
#define STAGE_DIR "/tmp"

#define RO_BIND (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* A new empty directory (or file) name in root, open as an O_PATH mount
 * target. */
static int mount_point(int root, const char *name, bool dir, struct rr_error *err)
{
    int fd;

    if (dir && mkdirat(root, name, 0755) < 0)
        return rr_fail(err, errno, "mkdir %s", name);
    if (!dir) {
        fd = openat(root, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
            return rr_fail(err, errno, "create %s", name);
        close(fd);
    }
    fd = openat(root, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (dir ? O_DIRECTORY : 0));
    if (fd < 0)
        return rr_fail(err, errno, "open %s", name);
    return fd;
}

static int attach_new(int root, const char *name, bool dir, int mfd, struct rr_error *err)
{
    _cleanup_close_ int target = mount_point(root, name, dir, err);

    if (target < 0 || rr_attach(mfd, target, err) < 0)
        return rr_wrap(err, "fuse-overlayfs root: %s", name);
    return 0;
}

/* The host's path (absolute), bound read-only at the same name. */
static int bind_host(int root, const char *path, bool dir, struct rr_error *err)
{
    _cleanup_close_ int mfd = rr_clone_tree(AT_FDCWD, path, true, RO_BIND, err);

    if (mfd < 0)
        return rr_wrap(err, "fuse-overlayfs root: bind %s", path);
    return attach_new(root, path + 1, dir, mfd, err);
}

/* /lib, /lib64, /bin, ...: what the host has there, or nothing. */
static int mirror_top(int root, const char *path, struct rr_error *err)
{
    char target[PATH_MAX];
    struct stat st;
    ssize_t n;

    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : rr_fail(err, errno, "fuse-overlayfs root: %s", path);
    if (S_ISDIR(st.st_mode))
        return bind_host(root, path, true, err);
    if (!S_ISLNK(st.st_mode))
        return 0;
    n = readlink(path, target, sizeof(target) - 1);
    if (n < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: readlink %s", path);
    target[n] = '\0';
    if (symlinkat(target, root, path + 1) < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: symlink %s", path);
    return 0;
}

static int system_files(int root, struct rr_error *err)
{
    static const char *const tops[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};

    if (bind_host(root, "/usr", true, err) < 0)
        return -1;
    for (size_t i = 0; i < RR_ARRAY_SIZE(tops); i++)
        if (mirror_top(root, tops[i], err) < 0)
            return -1;
    if (access("/etc/ld.so.cache", F_OK) != 0)
        return 0;
    if (mkdirat(root, "etc", 0755) < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: mkdir etc");
    return bind_host(root, "/etc/ld.so.cache", false, err);
}

static int fresh_proc(int root, struct rr_error *err)
{
    _cleanup_close_ int mfd =
        rr_make_fs("proc", NULL, 0, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);

    if (mfd < 0)
        return rr_wrap(err, "fuse-overlayfs root: fresh /proc");
    return attach_new(root, "proc", true, mfd, err);
}

/* pivot_root(".", "."): the old root ends up stacked on the new one and is
 * then detached; the new root is made read-only (the layers' mounts keep
 * their own flags). */
static int pivot(int root, struct rr_error *err)
{
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

    if (fchdir(root) < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: chdir");
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: pivot_root");
    if (umount2(".", MNT_DETACH) < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: detach the old root");
    if (chdir("/") < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: chdir /");
    if (rr_mount_setattr(AT_FDCWD, "/", 0, &ro) < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: make it read-only");
    return 0;
}

int overlay_fuse_stage(int lower_mfd, int store_mfd, struct rr_error *err)
{
    static const char *const opts[] = {"mode=0755", "size=64k", "nr_inodes=32"};
    _cleanup_close_ int root =
        rr_make_fs("tmpfs", opts, RR_ARRAY_SIZE(opts),
                   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    _cleanup_close_ int stage = -1;

    if (root < 0)
        return rr_wrap(err, "fuse-overlayfs root");
    stage = open(STAGE_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (stage < 0)
        return rr_fail(err, errno, "fuse-overlayfs root: open " STAGE_DIR);
    /* After the attach, root names the mounted tmpfs: everything below is
     * made relative to it. */
    if (rr_attach(root, stage, err) < 0)
        return rr_wrap(err, "fuse-overlayfs root");
    if (attach_new(root, "lower", true, lower_mfd, err) < 0 ||
        attach_new(root, "store", true, store_mfd, err) < 0 || fresh_proc(root, err) < 0 ||
        system_files(root, err) < 0)
        return -1;
    return pivot(root, err);
}
