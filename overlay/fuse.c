/* fuse-overlayfs: the same lower+upper view where kernel overlayfs cannot
 * mount (kernels before 5.11, a checkout that is itself on a stacked
 * overlay, a security module that refuses overlay in user namespaces).
 *
 * revrun makes the FUSE mount itself (fsopen "fuse" with the /dev/fuse fd it
 * opened) and hands fuse-overlayfs only the device, as "/dev/fd/N": libfuse
 * then serves it without mounting anything. So the daemon needs no mount
 * privilege and no fusermount3, and the mount is made with revrun's flags:
 *   nosuid, nodev         as the native overlay (MOUNT_ATTR_*);
 *   default_permissions   the kernel checks modes against what the daemon
 *                         reports, as for any filesystem;
 *   user_id/group_id, no allow_other
 *                         only processes whose every uid and gid is the
 *                         container user's are served (not even host root);
 *   fsync=0               the upper is thrown away (native: volatile).
 * The lower is the read-only detached mount overlay_lower_open made.
 *
 * What fuse-overlayfs 1.10 writes in the upper, as revrun runs it (observed
 * as root, where the daemon runs as the unprivileged host uid of the
 * container user, and rootless, where it is uid 0 of revrun's user
 * namespace without capabilities; the same in both, since neither may set
 * trusted.* xattrs):
 *   deleted file/dir      a character device 0/0 named as it, mode 0 (an
 *                         empty ".wh.NAME" file instead where the kernel
 *                         refuses an unprivileged whiteout: before 5.8);
 *   opaque directory      xattr user.fuseoverlayfs.opaque = "y" on it, an
 *                         empty file ".wh..wh..opq" (mode 0700) in it, and
 *                         in most (those made by mkdir, not the deeper ones
 *                         of a copied-up tree) also a character device 0/0
 *                         ".wh..opq" (a privileged daemon would write
 *                         trusted.overlay.opaque instead); every directory
 *                         fuse-overlayfs creates is opaque;
 *   copied-up file        xattr user.fuseoverlayfs.origin = its path;
 *   renamed lower dir     copied up whole under the new name (each directory
 *                         opaque), the old name whited out; no redirect.
 * That is WB_FORMAT_FUSE_OVERLAYFS (writeback/base/format.h); the same names found
 * in a native upper are planted, and refused there. integration/fuse.bats
 * pins this, and that write-back makes the same change set of it as of the
 * native upper. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"

/* Looked for in this order; never the agent's PATH nor the caller's. */
static const char *const trusted_dirs[] = {"/usr/local/bin", "/usr/bin", "/bin"};

/* Inside a user namespace a file whose owner is not mapped here (host root
 * for a distribution's files) shows as the overflow uid: no one in here can
 * write it. Only when that uid is not also a real one of this namespace. */
static bool owner_unmapped(uid_t uid)
{
    char buf[4096];
    _cleanup_close_ int fd = open("/proc/sys/kernel/overflowuid", O_RDONLY | O_CLOEXEC);
    _cleanup_close_ int map = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    unsigned long overflow;
    char *line, *save = NULL;

    if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
        return false;
    buf[n] = '\0';
    overflow = strtoul(buf, NULL, 10);
    if (uid != overflow || map < 0 || (n = read(map, buf, sizeof(buf) - 1)) <= 0)
        return false;
    buf[n] = '\0';
    for (line = strtok_r(buf, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        unsigned long in, out, count;
        if (sscanf(line, "%lu %lu %lu", &in, &out, &count) != 3 ||
            (overflow >= in && overflow - in < count))
            return false;
    }
    return true;
}

/* A file that anyone but its owner could replace is not run as the daemon
 * that sees every byte the agent writes. */
static int check_binary(int fd, const char *path, struct rr_error *err)
{
    struct stat st;

    if (fstat(fd, &st) < 0)
        return rr_fail(err, errno, "fuse-overlayfs %s", path);
    if (!S_ISREG(st.st_mode) || !(st.st_mode & 0100))
        return rr_fail(err, EACCES, "fuse-overlayfs %s: not an executable file", path);
    if (st.st_mode & 022)
        return rr_fail(err, EPERM, "fuse-overlayfs %s: writable by group or others", path);
    if (st.st_uid != 0 && st.st_uid != geteuid() && !owner_unmapped(st.st_uid))
        return rr_fail(err, EPERM, "fuse-overlayfs %s: owned by uid %u, neither root nor you", path,
                       (unsigned)st.st_uid);
    return 0;
}

static int open_checked(const char *path, struct overlay_fuse_bin *b, struct rr_error *err)
{
    _cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "fuse-overlayfs %s", path);
    if (check_binary(fd, path, err) < 0)
        return -1;
    snprintf(b->path, sizeof(b->path), "%s", path);
    b->fd = rr_steal_fd(&fd);
    return 0;
}

int overlay_fuse_find(const char *override, struct overlay_fuse_bin *b, struct rr_error *err)
{
    b->fd = -1;
    b->path[0] = '\0';
    if (override != NULL) {
        if (override[0] != '/')
            return rr_fail(err, EINVAL, "fuse-overlayfs %s: an absolute path is needed", override);
        return open_checked(override, b, err);
    }
    for (size_t i = 0; i < RR_ARRAY_SIZE(trusted_dirs); i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/fuse-overlayfs", trusted_dirs[i]);
        if (access(path, F_OK) == 0)
            return open_checked(path, b, err);
    }
    return rr_fail(err, ENOENT,
                   "fuse-overlayfs not found in /usr/local/bin, /usr/bin or /bin (Debian and "
                   "Ubuntu: apt-get install fuse-overlayfs)");
}

int overlay_fuse_mount(uid_t uid, gid_t gid, int *dev_fd, struct rr_error *err)
{
    char o_fd[32], o_uid[32], o_gid[32];
    const char *opts[] = {
        "source=fuse-overlayfs", "subtype=fuse-overlayfs", o_fd, "rootmode=40000", o_uid, o_gid,
        "default_permissions"};
    _cleanup_close_ int dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    int mfd;

    if (dev < 0)
        return rr_fail(err, errno, "open /dev/fuse");
    snprintf(o_fd, sizeof(o_fd), "fd=%d", dev);
    snprintf(o_uid, sizeof(o_uid), "user_id=%u", (unsigned)uid);
    snprintf(o_gid, sizeof(o_gid), "group_id=%u", (unsigned)gid);
    mfd = rr_make_fs("fuse", opts, RR_ARRAY_SIZE(opts), MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
    if (mfd < 0)
        return rr_wrap(err, "FUSE mount");
    *dev_fd = rr_steal_fd(&dev);
    return mfd;
}

/* fuse-overlayfs reads ownership and modes from these xattrs when a layer's
 * top directory carries one: a checkout must not choose how it is seen. */
int overlay_fuse_check_lower(int lower_fd, struct rr_error *err)
{
    static const char *const names[] = {
        "user.fuseoverlayfs.override_stat",
        "user.containers.override_stat",
        "security.fuseoverlayfs.override_stat",
    };
    char path[64], v[8];

    /* lower_fd is an O_PATH mount fd: xattrs are read through its path. */
    snprintf(path, sizeof(path), "/proc/self/fd/%d", lower_fd);
    for (size_t i = 0; i < RR_ARRAY_SIZE(names); i++)
        if (getxattr(path, names[i], v, sizeof(v)) >= 0 || errno == ERANGE)
            return rr_fail(err, EPERM,
                           "the checkout's top directory carries %s: refused, "
                           "fuse-overlayfs would take owners and modes from it",
                           names[i]);
    return 0;
}

int overlay_fuse_exec(const struct overlay_fuse_bin *b, int dev_fd, int squash_uid, int squash_gid,
                      struct rr_error *err)
{
    static char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
    char opts[256], mountpoint[32];
    char *argv[] = {"fuse-overlayfs", "-f", "-o", opts, mountpoint, NULL};
    int n;

    /* The layers as overlay_fuse_stage placed them in the daemon's root. */
    n = snprintf(opts, sizeof(opts),
                 "lowerdir=/lower,upperdir=/store/upper,workdir=/store/work,fsync=0");
    if (squash_uid >= 0)
        snprintf(opts + n, sizeof(opts) - (size_t)n, ",squash_to_uid=%d,squash_to_gid=%d",
                 squash_uid, squash_gid);
    snprintf(mountpoint, sizeof(mountpoint), "/dev/fd/%d", dev_fd);
    if (fcntl(dev_fd, F_SETFD, 0) < 0)
        return rr_fail(err, errno, "fuse-overlayfs: /dev/fuse fd");
    /* The checked file itself, not whatever its path names by now. */
    execveat(b->fd, "", argv, envp, AT_EMPTY_PATH);
    return rr_fail(err, errno, "exec %s", b->path);
}
