#include "writeback/git/gitfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/markers.h"

static int read_fd(int fd, size_t max, char **buf, size_t *len, struct rr_error *err)
{
    struct stat st;
    size_t cap, n = 0;
    char *b;
    ssize_t r;

    if (fstat(fd, &st) < 0)
        return rr_fail(err, errno, "stat");
    if (!S_ISREG(st.st_mode))
        return 0;
    if ((uint64_t)st.st_size > max)
        return rr_fail(err, E2BIG, "%ju bytes, over the cap of %zu", (uintmax_t)st.st_size, max);
    cap = (size_t)st.st_size + 1;
    if ((b = malloc(cap + 1)) == NULL)
        return rr_fail(err, ENOMEM, "read");
    /* One byte more than stat said, so a file that grew is seen as such. */
    while ((r = read(fd, b + n, cap - n)) > 0)
        if ((n += (size_t)r) == cap)
            break;
    if (r < 0 || n > (size_t)st.st_size) {
        int e = r < 0 ? errno : ESTALE;
        free(b);
        return rr_fail(err, e, "read");
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 1;
}

int wb_git_read_fd(int pfd, size_t max, char **buf, size_t *len, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    char proc[64];
    struct stat st;

    if (fstat(pfd, &st) < 0)
        return rr_fail(err, errno, "stat");
    if (!S_ISREG(st.st_mode))
        return 0;
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    if ((fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
        return rr_fail(err, errno, "open");
    return read_fd(fd, max, buf, len, err);
}

int wb_git_open_file(int dirfd, const char *path, int *fd, struct stat *st, struct rr_error *err)
{
    _cleanup_close_ int pfd = wb_openat_beneath(dirfd, path, O_PATH, 0);
    char proc[64];

    /* O_PATH first: a device or a fifo is never opened for reading. */
    if (pfd < 0)
        return errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EXDEV
                   ? 0
                   : rr_fail(err, errno, "open %s", path);
    if (fstat(pfd, st) < 0)
        return rr_fail(err, errno, "stat %s", path);
    if (!S_ISREG(st->st_mode))
        return 0;
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    if ((*fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
        return rr_fail(err, errno, "open %s", path);
    return 1;
}

int wb_git_read(int dirfd, const char *path, size_t max, char **buf, size_t *len,
                struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    struct stat st;
    int r;

    if ((r = wb_git_open_file(dirfd, path, &fd, &st, err)) <= 0)
        return r;
    if ((r = read_fd(fd, max, buf, len, err)) < 0)
        return rr_wrap(err, "%s", path);
    return r;
}

int wb_git_read_merged(int ufd, int lfd, enum wb_format fmt, const char *name, size_t max,
                       char **buf, size_t *len, struct rr_error *err)
{
    char wh[300];
    struct stat st;

    if (ufd >= 0 && fstatat(ufd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return S_ISREG(st.st_mode) ? wb_git_read(ufd, name, max, buf, len, err) : 0;
    if (ufd >= 0 && errno != ENOENT)
        return rr_fail(err, errno, "upper %s", name);
    snprintf(wh, sizeof(wh), "%s%s", WB_WH_PREFIX, name);
    if (ufd >= 0 && fmt == WB_FORMAT_FUSE_OVERLAYFS &&
        fstatat(ufd, wh, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    return lfd >= 0 ? wb_git_read(lfd, name, max, buf, len, err) : 0;
}

static bool has(int dfd, const char *name, mode_t type)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

bool wb_git_is_gitfile(int lower_fd)
{
    _cleanup_free_ char *buf = NULL;
    size_t len;
    struct rr_error ignored;

    return wb_git_read(lower_fd, ".git", WB_GITFILE_MAX, &buf, &len, &ignored) == 1 &&
           len >= 8 && memcmp(buf, "gitdir: ", 8) == 0;
}

bool wb_git_is_repo(int lower_fd)
{
    _cleanup_close_ int g = wb_openat_beneath(lower_fd, ".git", O_PATH | O_DIRECTORY, 0);

    return g >= 0 && has(g, "HEAD", S_IFREG) && has(g, "objects", S_IFDIR) &&
           has(g, "refs", S_IFDIR);
}
