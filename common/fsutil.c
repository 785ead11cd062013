#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

#define REMOVE_MAX_DEPTH 128

int rr_open_in_root(int rootfd, const char *path, int flags, bool no_symlinks)
{
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | (no_symlinks ? RESOLVE_NO_SYMLINKS : 0),
    };

    while (*path == '/')
        path++;
    if (*path == '\0')
        path = ".";
    for (;;) {
        int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
        /* EAGAIN: a concurrent rename raced the lookup; the kernel asks us to
         * retry rather than risk a wrong answer. */
        if (fd < 0 && errno == EAGAIN)
            continue;
        return fd;
    }
}

/* Open (creating when missing) the component path[0..end) inside rootfd. */
static int open_or_create(int rootfd, char *prefix, mode_t mode, struct rr_error *err)
{
    int fd = rr_open_in_root(rootfd, prefix, O_PATH | O_DIRECTORY, false);
    char *slash;
    _cleanup_close_ int parent = -1;

    if (fd >= 0 || errno != ENOENT)
        return fd >= 0 ? fd : rr_fail(err, errno, "open %s", prefix);
    slash = strrchr(prefix, '/');
    if (slash != NULL)
        *slash = '\0';
    parent = rr_open_in_root(rootfd, slash ? prefix : "", O_PATH | O_DIRECTORY, false);
    if (slash != NULL)
        *slash = '/';
    if (parent < 0)
        return rr_fail(err, errno, "open parent of %s", prefix);
    if (mkdirat(parent, slash ? slash + 1 : prefix, mode) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "mkdir %s", prefix);
    fd = rr_open_in_root(rootfd, prefix, O_PATH | O_DIRECTORY, false);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", prefix);
    return fd;
}

int rr_mkdir_p_in_root(int rootfd, const char *path, mode_t mode, struct rr_error *err)
{
    char prefix[PATH_MAX];
    size_t len = 0;
    int fd = -1;

    while (*path == '/')
        path++;
    if (strlen(path) >= sizeof(prefix))
        return rr_fail(err, ENAMETOOLONG, "mkdir %s", path);
    if (*path == '\0') {
        fd = rr_open_in_root(rootfd, ".", O_PATH | O_DIRECTORY, false);
        return fd >= 0 ? fd : rr_fail(err, errno, "open /");
    }
    /* Each prefix is resolved from the root again, inside it: a component
     * cannot lead out, whatever symlinks the tree holds. */
    while (*path != '\0') {
        size_t n = strcspn(path, "/");
        if (len > 0)
            prefix[len++] = '/';
        memcpy(prefix + len, path, n);
        len += n;
        prefix[len] = '\0';
        path += n;
        while (*path == '/')
            path++;
        if (fd >= 0)
            close(fd);
        fd = open_or_create(rootfd, prefix, mode, err);
        if (fd < 0)
            return -1;
    }
    return fd;
}

int rr_touch_in_root(int rootfd, const char *path, mode_t mode, struct rr_error *err)
{
    char parent[PATH_MAX];
    const char *slash = strrchr(path, '/');
    _cleanup_close_ int dirfd = -1;
    int fd;

    if (slash == NULL || (size_t)(slash - path) >= sizeof(parent))
        return rr_fail(err, EINVAL, "touch %s", path);
    memcpy(parent, path, (size_t)(slash - path));
    parent[slash - path] = '\0';
    dirfd = rr_mkdir_p_in_root(rootfd, parent, 0755, err);
    if (dirfd < 0)
        return -1;
    fd = rr_open_in_root(rootfd, path, O_PATH, false);
    if (fd >= 0)
        return fd;
    /* dirfd is O_PATH: create through a real directory fd. */
    _cleanup_close_ int real = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (real < 0)
        return rr_fail(err, errno, "open %s", parent);
    fd = openat(real, slash + 1, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0 && errno != EEXIST)
        return rr_fail(err, errno, "create %s", path);
    if (fd >= 0)
        close(fd);
    fd = rr_open_in_root(rootfd, path, O_PATH, false);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", path);
    return fd;
}

int rr_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;

    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int rr_write_atomic(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
                    struct rr_error *err)
{
    char tmp[NAME_MAX + 1];
    _cleanup_close_ int fd = -1;

    if ((size_t)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid()) >= sizeof(tmp))
        return rr_fail(err, ENAMETOOLONG, "write %s", name);
    unlinkat(dirfd, tmp, 0);
    fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0)
        return rr_fail(err, errno, "create %s", tmp);
    if (rr_write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
        int e = errno;
        unlinkat(dirfd, tmp, 0);
        return rr_fail(err, e, "write %s", name);
    }
    if (renameat(dirfd, tmp, dirfd, name) < 0) {
        int e = errno;
        unlinkat(dirfd, tmp, 0);
        return rr_fail(err, e, "rename %s", name);
    }
    return 0;
}

int rr_read_file(int dirfd, const char *name, size_t max, char **out, size_t *len,
                 struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    _cleanup_free_ char *buf = NULL;
    size_t used = 0;
    struct stat st;

    fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", name);
    if (fstat(fd, &st) < 0)
        return rr_fail(err, errno, "stat %s", name);
    if (!S_ISREG(st.st_mode))
        return rr_fail(err, EINVAL, "%s: not a regular file", name);
    buf = malloc(max + 1);
    if (buf == NULL)
        return rr_fail(err, ENOMEM, "read %s", name);
    for (;;) {
        ssize_t n = read(fd, buf + used, max + 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read %s", name);
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > max)
            return rr_fail(err, EFBIG, "%s: larger than %zu bytes", name, max);
    }
    buf[used] = '\0';
    *out = rr_steal_ptr(&buf);
    if (len != NULL)
        *len = used;
    return 0;
}

/* Empty the directory open as fd: depth-capped recursion. */
static int empty_dir(int fd, unsigned depth, struct rr_error *err)
{
    DIR *d;
    struct dirent *de;
    int dupfd;

    if (depth > REMOVE_MAX_DEPTH)
        return rr_fail(err, ELOOP, "directory tree deeper than %d", REMOVE_MAX_DEPTH);
    dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (dupfd < 0)
        return rr_fail(err, errno, "dup");
    d = fdopendir(dupfd);
    if (d == NULL) {
        close(dupfd);
        return rr_fail(err, errno, "opendir");
    }
    while ((errno = 0, de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (unlinkat(fd, de->d_name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            int e = errno;
            closedir(d);
            return rr_fail(err, e, "remove %s", de->d_name);
        }
        if (rr_remove_tree(fd, de->d_name, err) < 0) {
            closedir(d);
            return -1;
        }
    }
    if (errno != 0) {
        int e = errno;
        closedir(d);
        return rr_fail(err, e, "readdir");
    }
    closedir(d);
    return 0;
}

static unsigned remove_depth;

int rr_remove_tree(int dirfd, const char *name, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    int r;

    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return rr_fail(err, errno, "remove %s", name);
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        /* A directory its owner made unreadable: we own it, so open it up. */
        _cleanup_close_ int p = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (p >= 0 && fchmodat(dirfd, name, 0700, AT_SYMLINK_NOFOLLOW) == 0)
            fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0)
        return rr_fail(err, errno, "open %s", name);
    /* Write and search permission are needed to delete entries. */
    fchmod(fd, 0700);
    remove_depth++;
    r = empty_dir(fd, remove_depth, err);
    remove_depth--;
    if (r < 0)
        return rr_wrap(err, "%s", name);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return rr_fail(err, errno, "rmdir %s", name);
    return 0;
}

void rr_close_all_except(const int *keep, size_t n)
{
    int lo = 3;

    /* Walk the kept fds in ascending order, closing the gaps between them. */
    for (;;) {
        int next = -1;
        for (size_t i = 0; i < n; i++)
            if (keep[i] >= lo && (next < 0 || keep[i] < next))
                next = keep[i];
        if (next < 0) {
            syscall(SYS_close_range, lo, ~0U, 0);
            return;
        }
        if (next > lo)
            syscall(SYS_close_range, lo, next - 1, 0);
        lo = next + 1;
    }
}

int rr_reopen_same(int dirfd, const char *path, int like_fd, struct rr_error *err)
{
    struct stat a, b;
    int fd = openat(dirfd, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "reopen %s", path);
    if (fstat(fd, &a) < 0 || fstat(like_fd, &b) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "stat %s", path);
    }
    if (a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        close(fd);
        return rr_fail(err, ESTALE, "%s was replaced", path);
    }
    return fd;
}
