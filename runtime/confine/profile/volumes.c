/* An engine's binds that are a kubelet's volumes (emptyDir, configMap,
 * secret, projected, a hostPath below the kubelet's pods directory, the
 * container's termination log and /etc/hosts): idmapped through the
 * container's mapping, so that its root owns what the kubelet's root owns
 * there and writes as it, as under runc. Everything else keeps its host
 * owners (an engine container's root is an unprivileged host id), with one
 * log line for a writable bind.
 *
 * Decided by identity, never by the path string: the source as opened is
 * walked up with ".." to the policy's kubeletPodsDir (its device and
 * inode), on the same mount all the way (a bind mount below it, which a
 * subPath of a hostPath volume is, leads out of it: refused), and that
 * directory is root's, closed to every other user (nobody else reaches a
 * file the container's root leaves there, setuid or not) and none of the
 * host's system directories.
 *
 * One crossing is the kubelet's own: a secret, projected or memory-backed
 * emptyDir volume is a tmpfs the kubelet mounts at PODS/UID/volumes/
 * PLUGIN/NAME. Crossed there only, under the container's own pod's UID
 * (the CRI's annotation, the directory opened and compared by identity:
 * another pod's secrets stay its own), and only when that mount is the
 * whole of a tmpfs mounted whole nowhere else in this mount table (a bind
 * of another tree, or of a tmpfs the host uses elsewhere such as /run, is
 * not the kubelet's volume).
 *
 * What is judged is the bind's own mount: mounts below it (a recursive
 * bind's) are never idmapped (runtime/container/engine.c idmap_volumes). */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/libmnt.h"

#define WALK_MAX 64
#define TMPFS_MAGIC_NR 0x01021994
/* a kubelet tmpfs volume's root sits at PODS/UID/volumes/PLUGIN/NAME */
#define TMPFS_VOLUME_DEPTH 4

struct where {
    dev_t dev;
    ino_t ino;
    uint64_t mnt;
    bool mount_root; /* the root of its mount */
};

static int where_of(int fd, struct where *w)
{
    struct statx sx;

    if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &sx) < 0)
        return -1;
    w->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
    w->ino = sx.stx_ino;
    w->mnt = (sx.stx_mask & STATX_MNT_ID) ? sx.stx_mnt_id : 0;
    w->mount_root = (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
                    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
    return 0;
}

/* The mount the walk met below the pods directory may be a kubelet's
 * tmpfs volume: a tmpfs, mounted whole (its root "/"), and the only whole
 * mount of that filesystem in this mount table (a subPath's bind of a
 * directory in it is not another copy of it). */
static bool lone_tmpfs(int fd, const struct where *w)
{
    struct rr_error err = {0};
    struct statfs sf;
    struct libmnt_table *tab;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;
    unsigned mounts = 0;
    bool whole = false;

    if (fstatfs(fd, &sf) < 0 || sf.f_type != TMPFS_MAGIC_NR || w->mnt == 0 ||
        rr_libmnt_load(&err) < 0)
        return false;
    tab = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);
    while (tab != NULL && it != NULL && mnt_table_next_fs(tab, it, &fs) == 0) {
        const char *root = mnt_fs_get_root(fs);
        if (mnt_fs_get_devno(fs) != w->dev || root == NULL || strcmp(root, "/") != 0)
            continue;
        mounts++;
        if ((uint64_t)mnt_fs_get_id(fs) == w->mnt)
            whole = true;
    }
    if (it != NULL)
        mnt_free_iter(it);
    if (tab != NULL)
        mnt_unref_table(tab);
    return whole && mounts == 1;
}

static bool same_file(const struct where *a, const struct where *b)
{
    return a->dev == b->dev && a->ino == b->ino;
}

/* The host's own trees: never a kubelet's pods directory. */
static bool system_dir(const struct where *w)
{
    static const char *const dirs[] = {"/",     "/etc",  "/usr", "/var",     "/var/lib", "/root",
                                       "/home", "/boot", "/bin", "/sbin",    "/lib",     "/lib64",
                                       "/opt",  "/srv",  "/run", "/tmp",     "/dev",     "/proc",
                                       "/sys",  "/mnt",  "/media"};
    struct stat st;

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        if (stat(dirs[i], &st) == 0 && st.st_dev == w->dev && st.st_ino == w->ino)
            return true;
    return false;
}

/* The policy's pods directory, when it may hold volumes to idmap. */
static int open_pods(const struct profile *p, struct where *w)
{
    struct stat st;
    int fd = open(p->eng.kubelet_pods, O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    /* root's, closed to others, and its group (when it may enter) root's */
    if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 0027) != 0 ||
        ((st.st_mode & 0070) != 0 && st.st_gid != 0) || where_of(fd, w) < 0 || system_dir(w)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* A directory to start the walk from: the source itself, or for a file
 * its parent, which must hold exactly that file under its name. */
static int start_dir(int src, const char *source)
{
    char copy[4096], name[4096];
    struct stat st, in_parent;
    int dir;

    if (fstat(src, &st) < 0)
        return -1;
    if (S_ISDIR(st.st_mode))
        return fcntl(src, F_DUPFD_CLOEXEC, 0);
    if (strlen(source) >= sizeof(copy))
        return -1;
    snprintf(copy, sizeof(copy), "%s", source);
    snprintf(name, sizeof(name), "%s", basename(copy));
    snprintf(copy, sizeof(copy), "%s", source);
    dir = open(dirname(copy), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return -1;
    if (fstatat(dir, name, &in_parent, AT_SYMLINK_NOFOLLOW) < 0 || in_parent.st_dev != st.st_dev ||
        in_parent.st_ino != st.st_ino) {
        close(dir);
        return -1;
    }
    return dir;
}

/* The crossed tmpfs: the kubelet's volume of this pod (pod_dir: the walk's
 * directory TMPFS_VOLUME_DEPTH - 1 above its root, PODS/UID). */
static bool own_tmpfs_volume(const struct profile *p, int pods, int tmpfs, const struct where *t,
                             const struct where *pod_dir)
{
    _cleanup_close_ int own = -1;
    struct where w;

    if (p->eng.pod_uid[0] == '\0')
        return false;
    own = openat(pods, p->eng.pod_uid, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return own >= 0 && where_of(own, &w) == 0 && same_file(&w, pod_dir) && lone_tmpfs(tmpfs, t);
}

int profile_kubelet_volume(const struct profile *p, int src, const char *source)
{
    _cleanup_close_ int pods = -1, cur = -1, tmpfs = -1;
    struct where top, here, tmpfs_at = {0}, pod_dir = {0};
    uint64_t tmpfs_mnt = 0; /* the kubelet's tmpfs the walk is in, or left */
    int tmpfs_root = -1;    /* the level of its root, once left */

    if (!p->engine || (pods = open_pods(p, &top)) < 0 || top.mnt == 0 ||
        (cur = start_dir(src, source)) < 0)
        return 0;
    for (int level = 0; level < WALK_MAX; level++) {
        int up;
        if (where_of(cur, &here) < 0)
            return 0;
        if (here.mnt != top.mnt) {
            /* one mount below the pods directory, crossed at its root */
            if (tmpfs_root >= 0 || (tmpfs_mnt != 0 && here.mnt != tmpfs_mnt))
                return 0;
            tmpfs_mnt = here.mnt;
            if (here.mount_root) {
                tmpfs_root = level;
                tmpfs_at = here;
                tmpfs = fcntl(cur, F_DUPFD_CLOEXEC, 0);
                if (tmpfs < 0)
                    return 0;
            }
        } else if (tmpfs_mnt != 0 && tmpfs_root < 0) {
            return 0;
        }
        if (tmpfs_root >= 0 && level - tmpfs_root == TMPFS_VOLUME_DEPTH - 1)
            pod_dir = here;
        if (same_file(&here, &top)) { /* below it, not the directory itself */
            if (tmpfs_root < 0)
                return level > 0;
            return level - tmpfs_root == TMPFS_VOLUME_DEPTH &&
                   own_tmpfs_volume(p, pods, tmpfs, &tmpfs_at, &pod_dir);
        }
        up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (up < 0)
            return 0;
        close(cur);
        cur = up;
    }
    return 0;
}
