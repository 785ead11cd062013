#include "common/mountapi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

int rr_fsopen(const char *fstype, unsigned flags)
{
    return (int)syscall(SYS_fsopen, fstype, flags);
}

int rr_fsconfig(int fd, unsigned cmd, const char *key, const void *value, int aux)
{
    return (int)syscall(SYS_fsconfig, fd, cmd, key, value, aux);
}

int rr_fsmount(int fd, unsigned flags, unsigned attr)
{
    return (int)syscall(SYS_fsmount, fd, flags, attr);
}

int rr_move_mount(int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags)
{
    return (int)syscall(SYS_move_mount, from_dfd, from, to_dfd, to, flags);
}

int rr_open_tree(int dfd, const char *path, unsigned flags)
{
    return (int)syscall(SYS_open_tree, dfd, path, flags);
}

int rr_mount_setattr(int dfd, const char *path, unsigned flags, struct mount_attr *attr)
{
    return (int)syscall(SYS_mount_setattr, dfd, path, flags, attr, sizeof(*attr));
}

int rr_attach(int mfd, int target, struct rr_error *err)
{
    if (rr_move_mount(mfd, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
        return rr_fail(err, errno, "move_mount");
    return 0;
}

/* The fs context explains refusals ("e overlayfs: ...") through read(). */
static void fs_context_reason(int fd, struct rr_error *err)
{
    char buf[512];
    ssize_t n;

    while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
        buf[n] = '\0';
        if (buf[n - 1] == '\n')
            buf[n - 1] = '\0';
        if ((buf[0] == 'e' || buf[0] == 'w') && n > 2) {
            size_t used = strlen(err->msg);
            snprintf(err->msg + used, sizeof(err->msg) - used, " (kernel: %s)", buf + 2);
        }
    }
}

int rr_make_fs(const char *fstype, const char *const *opts, size_t n_opts, unsigned attr,
               struct rr_error *err)
{
    return rr_make_fs_src(fstype, NULL, opts, n_opts, attr, err);
}

int rr_make_fs_src(const char *fstype, const char *source, const char *const *opts,
                   size_t n_opts, unsigned attr, struct rr_error *err)
{
    _cleanup_close_ int fs = rr_fsopen(fstype, FSOPEN_CLOEXEC);
    int mfd;

    if (fs < 0)
        return rr_fail(err, errno, "fsopen %s", fstype);
    /* What mountinfo shows as the mount's source (an engine's "shm",
     * "tmpfs", "proc"); informational for these filesystems. */
    if (source != NULL && source[0] != '\0' &&
        rr_fsconfig(fs, FSCONFIG_SET_STRING, "source", source, 0) < 0) {
        rr_fail(err, errno, "%s source %s", fstype, source);
        fs_context_reason(fs, err);
        return -1;
    }
    for (size_t i = 0; i < n_opts; i++) {
        char key[128];
        const char *eq = strchr(opts[i], '=');
        int r;
        if (eq == NULL) {
            r = rr_fsconfig(fs, FSCONFIG_SET_FLAG, opts[i], NULL, 0);
        } else {
            if ((size_t)(eq - opts[i]) >= sizeof(key))
                return rr_fail(err, EINVAL, "%s option %s", fstype, opts[i]);
            memcpy(key, opts[i], (size_t)(eq - opts[i]));
            key[eq - opts[i]] = '\0';
            r = rr_fsconfig(fs, FSCONFIG_SET_STRING, key, eq + 1, 0);
        }
        if (r < 0) {
            rr_fail(err, errno, "%s option %s", fstype, opts[i]);
            fs_context_reason(fs, err);
            return -1;
        }
    }
    if (rr_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
        rr_fail(err, errno, "create %s", fstype);
        fs_context_reason(fs, err);
        return -1;
    }
    mfd = rr_fsmount(fs, FSMOUNT_CLOEXEC, attr);
    if (mfd < 0)
        return rr_fail(err, errno, "fsmount %s", fstype);
    return mfd;
}

int rr_clone_tree(int dfd, const char *path, bool recursive, uint64_t attr, struct rr_error *err)
{
    unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (recursive ? AT_RECURSIVE : 0) |
                     (path[0] == '\0' ? AT_EMPTY_PATH : 0);
    struct mount_attr ma = {.attr_set = attr};
    int fd = rr_open_tree(dfd, path, flags);

    /* The atime mode is a field, not a flag: setting one means clearing
     * the field first, or the kernel refuses (EINVAL). */
    if (attr & MOUNT_ATTR__ATIME)
        ma.attr_clr = MOUNT_ATTR__ATIME;

    if (fd < 0)
        return rr_fail(err, errno, "open_tree");
    if (attr != 0 &&
        rr_mount_setattr(fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &ma) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "mount_setattr");
    }
    return fd;
}
