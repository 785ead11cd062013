#include "writeback/base/fsutil.h"

#include "common/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/textclass.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
/* Linux 6.13: the *xattrat calls (same number on every architecture). */
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif

struct xattr_args_k {
    uint64_t value;
    uint32_t size;
    uint32_t flags;
};

static int openat2_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
    /* openat2 refuses O_PATH with any flag but these three. */
    int extra = (flags & O_PATH) ? O_CLOEXEC | O_NOFOLLOW : O_CLOEXEC | O_NOFOLLOW | O_NOCTTY;
    struct open_how how = {
        .flags = (uint64_t)(flags | extra),
        .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
    };

    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int wb_openat_beneath(int dirfd, const char *path, int flags, mode_t mode)
{
    struct stat st;
    int fd = openat2_beneath(dirfd, path, flags, mode), probe;

    /* O_PATH|O_NOFOLLOW opens a final symlink as itself, so asking for a
     * directory there says ENOTDIR: report it as the symlink it is. */
    if (fd >= 0 || errno != ENOTDIR || !(flags & O_DIRECTORY))
        return fd;
    probe = openat2_beneath(dirfd, path, O_PATH, 0);
    if (probe >= 0) {
        bool link = fstat(probe, &st) == 0 && S_ISLNK(st.st_mode);
        close(probe);
        errno = link ? ELOOP : ENOTDIR;
    } else {
        errno = ENOTDIR;
    }
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void wb_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int push_name(char ***v, size_t *n, size_t *cap, const char *name)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        char **nv = realloc(*v, ncap * sizeof(*nv));
        if (nv == NULL)
            return -1;
        *v = nv;
        *cap = ncap;
    }
    if (((*v)[*n] = strdup(name)) == NULL)
        return -1;
    (*n)++;
    return 0;
}

int wb_read_names(int dirfd, size_t max_names, char ***names, size_t *n, struct rr_error *err)
{
    char buf[32768];
    char **v = NULL;
    size_t cnt = 0, cap = 0;
    ssize_t got;

    if (lseek(dirfd, 0, SEEK_SET) < 0)
        return rr_fail(err, errno, "rewind directory");
    while ((got = getdents64(dirfd, buf, sizeof(buf))) > 0) {
        for (ssize_t off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
                continue;
            if (cnt == max_names) {
                wb_free_names(v, cnt);
                return rr_fail(err, E2BIG, "more than %zu entries", max_names);
            }
            if (push_name(&v, &cnt, &cap, d->d_name) < 0) {
                wb_free_names(v, cnt);
                return rr_fail(err, ENOMEM, "reading a directory");
            }
        }
    }
    if (got < 0) {
        wb_free_names(v, cnt);
        return rr_fail(err, errno, "reading a directory");
    }
    if (cnt > 1)
        qsort(v, cnt, sizeof(*v), cmp_str);
    *names = v;
    *n = cnt;
    return 0;
}

/* An O_PATH fd of dirfd/name and its /proc/self/fd name: the fallback for
 * reading xattrs of a symlink or a device node on kernels before 6.13. */
static int proc_path(int dirfd, const char *name, char *buf, size_t len)
{
    int fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

    if (fd >= 0)
        snprintf(buf, len, "/proc/self/fd/%d", fd);
    return fd;
}

static ssize_t list_raw(int fd, int dirfd, const char *name, char *buf, size_t size)
{
    char p[64];
    ssize_t r;
    int pfd, saved;

    if (fd >= 0)
        return flistxattr(fd, buf, size);
    r = syscall(SYS_listxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, buf, size);
    if (r >= 0 || errno != ENOSYS)
        return r;
    if ((pfd = proc_path(dirfd, name, p, sizeof(p))) < 0)
        return -1;
    r = listxattr(p, buf, size); /* follows the magic link to the object itself */
    saved = errno;
    close(pfd);
    errno = saved;
    return r;
}

int wb_xattr_list(int fd, int dirfd, const char *name, char **list, size_t *len,
                  struct rr_error *err)
{
    /* Most entries' lists fit a small buffer: one call, not a size query
     * and a read, for every entry of the walk. */
    enum { FIRST = 256 };
    char *first = malloc(FIRST);
    ssize_t got;

    if (first == NULL)
        return rr_fail(err, ENOMEM, "list xattrs");
    if ((got = list_raw(fd, dirfd, name, first, FIRST)) >= 0) {
        *list = first;
        *len = (size_t)got;
        return 0;
    }
    free(first);
    if (errno == ENOTSUP) {
        *list = NULL;
        *len = 0;
        return 0;
    }
    if (errno != ERANGE)
        return rr_fail(err, errno, "list xattrs");
    for (int tries = 0; tries < 4; tries++) {
        ssize_t need = list_raw(fd, dirfd, name, NULL, 0);
        char *buf;
        if (need < 0)
            return errno == ENOTSUP ? (*list = NULL, *len = 0, 0)
                                    : rr_fail(err, errno, "list xattrs");
        if ((buf = malloc((size_t)need + 1)) == NULL)
            return rr_fail(err, ENOMEM, "list xattrs");
        got = list_raw(fd, dirfd, name, buf, (size_t)need);
        if (got >= 0) {
            *list = buf;
            *len = (size_t)got;
            return 0;
        }
        free(buf);
        if (errno != ERANGE) /* ERANGE: one was added in between; try again */
            return rr_fail(err, errno, "list xattrs");
    }
    return rr_fail(err, ERANGE, "list xattrs: keeps changing");
}

static ssize_t get_raw(int fd, int dirfd, const char *name, const char *xname, void *buf,
                       size_t cap)
{
    struct xattr_args_k args = {.value = (uint64_t)(uintptr_t)buf, .size = (uint32_t)cap};
    char p[64];
    ssize_t r;
    int pfd, saved;

    if (fd >= 0)
        return fgetxattr(fd, xname, buf, cap);
    r = syscall(SYS_getxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW, xname, &args, sizeof(args));
    if (r >= 0 || errno != ENOSYS)
        return r;
    if ((pfd = proc_path(dirfd, name, p, sizeof(p))) < 0)
        return -1;
    r = getxattr(p, xname, buf, cap);
    saved = errno;
    close(pfd);
    errno = saved;
    return r;
}

int wb_xattr_get(int fd, int dirfd, const char *name, const char *xname, void *buf, size_t cap,
                 size_t *vlen, struct rr_error *err)
{
    ssize_t r = get_raw(fd, dirfd, name, xname, buf, cap);

    if (r < 0 && errno == ERANGE) {
        *vlen = SIZE_MAX;
        return 0;
    }
    if (r < 0)
        return rr_fail(err, errno, "read xattr %.100s", xname);
    *vlen = (size_t)r;
    return 0;
}

int wb_hash_fd(int fd, uint64_t expect, uint64_t cap, const struct wb_deny *deny,
               struct wb_content *out, struct rr_error *err)
{
    unsigned char buf[65536];
    struct wb_sha256 h;
    struct wb_deny_stream ds;
    struct wb_textclass tc;
    ssize_t n;

    *out = (struct wb_content){0};
    wb_textclass_init(&tc);
    if (wb_deny_stream_init(&ds, deny, err) < 0)
        return -1;
    wb_sha256_init(&h);
    while ((n = read(fd, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            wb_deny_stream_free(&ds);
            return rr_fail(err, errno, "read");
        }
        out->size += (uint64_t)n;
        if (out->size > cap) {
            out->over_cap = true; /* checked while reading: the file may have grown */
            break;
        }
        wb_sha256_update(&h, buf, (size_t)n);
        wb_deny_stream_feed(&ds, buf, (size_t)n);
        wb_textclass_feed(&tc, buf, (size_t)n);
    }
    wb_textclass_finish(&tc);
    out->unsafe = tc.unsafe;
    out->secret = ds.hit;
    wb_deny_stream_free(&ds);
    if (!out->over_cap && out->size != expect)
        return rr_fail(err, ESTALE, "changed while it was read");
    wb_sha256_final(&h, out->sha256);
    return 0;
}

int wb_readlink(int dirfd, const char *name, size_t max, char **out, size_t *len,
                struct rr_error *err)
{
    _cleanup_free_ char *buf = malloc(max + 1);
    ssize_t n;

    if (buf == NULL)
        return rr_fail(err, ENOMEM, "readlink");
    n = readlinkat(dirfd, name, buf, max + 1);
    if (n < 0)
        return rr_fail(err, errno, "readlink");
    if ((size_t)n > max)
        return rr_fail(err, ENAMETOOLONG, "symlink target longer than %zu bytes", max);
    buf[n] = '\0';
    *len = (size_t)n;
    *out = rr_steal_ptr(&buf);
    return 0;
}

int wb_read_verified(int rootfd, const char *path, uint64_t size,
                     const unsigned char sha256[WB_SHA256_LEN], char **buf, struct rr_error *err)
{
    _cleanup_close_ int fd = wb_openat_beneath(rootfd, path, O_RDONLY | O_NONBLOCK, 0);
    _cleanup_free_ char *b = NULL;
    unsigned char got[WB_SHA256_LEN];
    struct stat st;
    size_t used = 0;
    ssize_t n;

    if (fd < 0 || fstat(fd, &st) < 0)
        return rr_fail(err, errno, "open %s", path);
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size || size > SIZE_MAX - 1)
        return rr_fail(err, ESTALE, "%s changed since it was vetted", path);
    if ((b = malloc((size_t)size + 1)) == NULL)
        return rr_fail(err, ENOMEM, "read %s", path);
    while (used <= size && (n = read(fd, b + used, (size_t)size + 1 - used)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read %s", path);
        used += (size_t)n;
    }
    wb_sha256(b, used, got);
    if (used != size || memcmp(got, sha256, WB_SHA256_LEN) != 0)
        return rr_fail(err, ESTALE, "%s changed since it was vetted", path);
    b[used] = '\0';
    *buf = rr_steal_ptr(&b);
    return 0;
}

int wb_copy_verified(int src, int dst, uint64_t size, const unsigned char sha256[WB_SHA256_LEN],
                     struct rr_error *err)
{
    unsigned char buf[65536], got[WB_SHA256_LEN];
    struct wb_sha256 h;
    uint64_t done = 0;
    ssize_t n;

    wb_sha256_init(&h);
    while ((n = read(src, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read");
        if ((done += (uint64_t)n) > size)
            return rr_fail(err, ESTALE, "longer than vetted");
        wb_sha256_update(&h, buf, (size_t)n);
        if (rr_write_all(dst, buf, (size_t)n) < 0)
            return rr_fail(err, errno, "write");
    }
    wb_sha256_final(&h, got);
    if (done != size || memcmp(got, sha256, WB_SHA256_LEN) != 0)
        return rr_fail(err, ESTALE, "content is not what was vetted");
    if (fsync(dst) < 0)
        return rr_fail(err, errno, "fsync");
    return 0;
}
