/* An engine container's private upper over its image (see
 * engine_rootstore.h). */
#include "runtime/container/engine_rootstore.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/rootfs.h"

/* The host id container id 0 maps to (-1: unmapped). */
static long host_of_zero(const struct rr_id_mapping *m, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (m[i].container_id == 0 && m[i].size > 0)
            return (long)m[i].host_id;
    return -1;
}

/* The mount points the image lacks, made in the upper as the container's
 * root (fsuid and fsgid its host ids), so that they are its own inside. */
static int premake(const struct profile *p, const struct overlay_store *s, int image, uid_t uid,
                   gid_t gid, const int *bind_fds, struct rr_error *err)
{
    _cleanup_close_ int upper = openat(s->upper_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    mode_t old;
    int r;

    if (upper < 0)
        return rr_fail(err, errno, "the image's upper");
    setfsgid(gid);
    setfsuid(uid);
    old = umask(022);
    r = rootfs_premake_engine(p, upper, image, bind_fds, err);
    umask(old);
    setfsuid(0);
    setfsgid(0);
    if ((uid_t)setfsuid((uid_t)-1) != 0 || (gid_t)setfsgid((gid_t)-1) != 0)
        return rr_fail(err, EPERM, "back to root's fsuid after the image's mount points");
    return r;
}

int engine_root_store_open(const struct profile *p, int state_dir, int image, const int *bind_fds,
                           struct overlay_store *s, struct rr_error *err)
{
    long uid = host_of_zero(p->eng.uid_map, p->eng.n_uid_map);
    long gid = host_of_zero(p->eng.gid_map, p->eng.n_gid_map);
    struct stat st;

    s->upper_fd = s->work_fd = -1;
    if (!p->eng.root_upper)
        return 0;
    if (uid < 0 || gid < 0)
        return rr_fail(err, EINVAL, "root.path: the image's private upper needs container "
                                    "id 0 mapped (linux.uidMappings and gidMappings)");
    if (fstat(image, &st) < 0)
        return rr_fail(err, errno, "root.path %s", p->eng.root_path);
    if (mkdirat(state_dir, ENGINE_ROOT_STORE, 0700) < 0)
        return rr_fail(err, errno, "root.path: the upper's store directory");
    if (overlay_store_mount(state_dir, ENGINE_ROOT_STORE, p->eng.root_upper_size, st.st_mode,
                            (uid_t)uid, (gid_t)gid, s, err) < 0)
        return rr_wrap(err, "root.path %s: its private upper", p->eng.root_path);
    return premake(p, s, image, (uid_t)uid, (gid_t)gid, bind_fds, err);
}

int engine_root_store_unmount(int state_dir, struct rr_error *err)
{
    _cleanup_close_ int fd = openat(state_dir, ENGINE_ROOT_STORE,
                                    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct statx stx;
    struct statfs sf;
    char path[64];

    if (fd < 0)
        return errno == ENOENT ? 0 : rr_fail(err, errno, "the image's upper store");
    /* Only the store's own tmpfs, mounted right there, is unmounted. */
    if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) < 0 || fstatfs(fd, &sf) < 0)
        return rr_fail(err, errno, "the image's upper store");
    if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
        !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) || sf.f_type != TMPFS_MAGIC)
        return 0;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (umount2(path, MNT_DETACH) < 0)
        return rr_fail(err, errno, "unmount the image's upper store");
    return 0;
}
