#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "overlay/overlay.h"
#include "common/mountapi.h"

/* Inodes scale with the byte cap (one per 4 KiB, within bounds), so an agent
 * cannot exhaust kernel memory with millions of empty files either. */
static uint64_t inode_cap(uint64_t size)
{
    uint64_t n = size / 4096;

    if (n < 4096)
        return 4096;
    if (n > (4u << 20))
        return 4u << 20;
    return n;
}

static int make_layer_dir(int root, const char *name, mode_t mode, uid_t owner, gid_t group,
                          struct rr_error *err)
{
    int fd;

    if (mkdirat(root, name, mode) < 0 || fchmodat(root, name, mode, 0) < 0)
        return rr_fail(err, errno, "mkdir %s", name);
    fd = openat(root, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", name);
    if (owner != (uid_t)-1 && fchownat(fd, "", owner, group, AT_EMPTY_PATH) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "chown %s", name);
    }
    return fd;
}

int overlay_store_mount(int dirfd, const char *name, uint64_t size, mode_t upper_mode,
                        uid_t owner, gid_t group, struct overlay_store *s, struct rr_error *err)
{
    char o_size[64], o_inodes[64], o_uid[32], o_gid[32];
    const char *opts[6];
    size_t n = 0;
    _cleanup_close_ int mfd = -1;
    _cleanup_close_ int target = -1;
    _cleanup_close_ int root = -1;

    s->upper_fd = s->work_fd = -1;
    snprintf(o_size, sizeof(o_size), "size=%llu", (unsigned long long)size);
    snprintf(o_inodes, sizeof(o_inodes), "nr_inodes=%llu", (unsigned long long)inode_cap(size));
    opts[n++] = o_size;
    opts[n++] = o_inodes;
    opts[n++] = "mode=0700";
    if (owner != (uid_t)-1) {
        snprintf(o_uid, sizeof(o_uid), "uid=%u", (unsigned)owner);
        snprintf(o_gid, sizeof(o_gid), "gid=%u", (unsigned)group);
        opts[n++] = o_uid;
        opts[n++] = o_gid;
    }
    mfd = rr_make_fs("tmpfs", opts, n, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
    if (mfd < 0)
        return rr_wrap(err, "upper store");
    target = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (target < 0)
        return rr_fail(err, errno, "upper store: open %s", name);
    if (rr_attach(mfd, target, err) < 0)
        return rr_wrap(err, "upper store");
    root = openat(mfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return rr_fail(err, errno, "upper store: open");
    /* The upper's root is the merged view's root: it looks like the lower's. */
    s->upper_fd = make_layer_dir(root, "upper", upper_mode & 0777, owner, group, err);
    if (s->upper_fd < 0)
        return rr_wrap(err, "upper store");
    s->work_fd = make_layer_dir(root, "work", 0700, owner, group, err);
    if (s->work_fd < 0) {
        overlay_store_close(s);
        return rr_wrap(err, "upper store");
    }
    return 0;
}

void overlay_store_close(struct overlay_store *s)
{
    if (s->upper_fd >= 0)
        close(s->upper_fd);
    if (s->work_fd >= 0)
        close(s->work_fd);
    s->upper_fd = s->work_fd = -1;
}

int overlay_store_pair(int dirfd, const char *name, const char *upper, const char *work,
                       mode_t upper_mode, uid_t owner, gid_t group, struct overlay_store *s,
                       struct rr_error *err)
{
    _cleanup_close_ int root = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    s->upper_fd = s->work_fd = -1;
    if (root < 0)
        return rr_fail(err, errno, "upper store: open %s", name);
    s->upper_fd = make_layer_dir(root, upper, upper_mode & 07777, owner, group, err);
    if (s->upper_fd < 0)
        return rr_wrap(err, "upper store");
    s->work_fd = make_layer_dir(root, work, 0700, owner, group, err);
    if (s->work_fd < 0) {
        overlay_store_close(s);
        return rr_wrap(err, "upper store");
    }
    return 0;
}
