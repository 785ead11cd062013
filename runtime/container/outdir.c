#include "runtime/container/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/mountapi.h"

int outdir_make(uint64_t size, uid_t uid, gid_t gid, struct rr_error *err)
{
    char sz[48], u[32], g[32];
    const char *opts[] = {sz, "mode=0755", u, g};
    int fd;

    snprintf(sz, sizeof(sz), "size=%llu", (unsigned long long)size);
    snprintf(u, sizeof(u), "uid=%u", (unsigned)uid);
    snprintf(g, sizeof(g), "gid=%u", (unsigned)gid);
    fd = rr_make_fs("tmpfs", opts, 4, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);
    return fd < 0 ? rr_wrap(err, "/out: tmpfs of %llu bytes", (unsigned long long)size) : fd;
}

struct walk {
    DIR *from[OUTDIR_MAX_DEPTH + 1];
    int to[OUTDIR_MAX_DEPTH + 1];
    size_t len[OUTDIR_MAX_DEPTH + 2];
    char path[4096];
    size_t depth;
    size_t entries;
    uid_t owner;
    gid_t group;
    outdir_report_fn report;
    void *arg;
    size_t *refused;
};

static void refuse(struct walk *w, const char *name, const char *why)
{
    size_t at = w->len[w->depth];
    char full[4096 + 256];

    snprintf(full, sizeof(full), "%.*s%s%s", (int)at, w->path, at ? "/" : "", name);
    w->report(w->arg, full, why);
    (*w->refused)++;
}

static const char *kind_of(mode_t m)
{
    return S_ISLNK(m)    ? "a symlink"
           : S_ISFIFO(m) ? "a fifo"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file or directory";
}

static int copy_file(struct walk *w, int from_dir, int to_dir, const char *name,
                     const struct stat *st, struct rr_error *err)
{
    _cleanup_close_ int in = openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_close_ int out = -1;
    off_t off = 0;

    if (in < 0)
        return rr_fail(err, errno, "/out: open %s", name);
    out = openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 (st->st_mode & 0100) ? 0755 : 0644);
    if (out < 0 && errno == EEXIST) {
        refuse(w, name, "exists in the out-dir already: not replaced");
        return 0;
    }
    if (out < 0)
        return rr_fail(err, errno, "out-dir: create %s", name);
    while (off < st->st_size) {
        ssize_t n = sendfile(out, in, &off, (size_t)(st->st_size - off));
        if (n < 0)
            return rr_fail(err, errno, "out-dir: copy %s", name);
        if (n == 0)
            break; /* shrank meanwhile: nobody writes it now, so it cannot */
    }
    /* the monitor's umask is not the operator's: the modes are said here */
    if ((fchown(out, w->owner, w->group) < 0 && errno != EPERM) ||
        fchmod(out, (st->st_mode & 0100) ? 0755 : 0644) < 0)
        return rr_fail(err, errno, "out-dir: owner and mode of %s", name);
    return 0;
}

static int enter_dir(struct walk *w, int from_dir, int to_dir, const char *name,
                     struct rr_error *err)
{
    size_t at = w->len[w->depth], n = strlen(name);
    int in, out;
    DIR *d;

    if (w->depth == OUTDIR_MAX_DEPTH) {
        refuse(w, name, "deeper than the out-dir's depth cap: not copied");
        return 0;
    }
    if (at + n + 2 > sizeof(w->path))
        return rr_fail(err, ENAMETOOLONG, "/out: a path is too long");
    if (mkdirat(to_dir, name, 0755) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "out-dir: mkdir %s", name);
    out = openat(to_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (out < 0) {
        refuse(w, name, "exists in the out-dir as a non-directory: not replaced");
        return 0;
    }
    if ((fchown(out, w->owner, w->group) < 0 && errno != EPERM) || fchmod(out, 0755) < 0) {
        close(out);
        return rr_fail(err, errno, "out-dir: owner and mode of %s", name);
    }
    in = openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    d = in < 0 ? NULL : fdopendir(in);
    if (d == NULL) {
        if (in >= 0)
            close(in);
        close(out);
        return rr_fail(err, errno, "/out: open %s", name);
    }
    if (at > 0)
        w->path[at++] = '/';
    memcpy(w->path + at, name, n);
    w->depth++;
    w->from[w->depth] = d;
    w->to[w->depth] = out;
    w->len[w->depth] = at + n;
    return 0;
}

static int visit(struct walk *w, const char *name, struct rr_error *err)
{
    int from_dir = dirfd(w->from[w->depth]), to_dir = w->to[w->depth];
    struct stat st;

    if (++w->entries > OUTDIR_MAX_ENTRIES) {
        refuse(w, name, "over the out-dir's entry cap: not copied");
        return 0;
    }
    if (fstatat(from_dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(err, errno, "/out: %s", name);
    if (S_ISREG(st.st_mode))
        return copy_file(w, from_dir, to_dir, name, &st, err);
    if (S_ISDIR(st.st_mode))
        return enter_dir(w, from_dir, to_dir, name, err);
    refuse(w, name, kind_of(st.st_mode));
    return 0;
}

int outdir_export(int from, int to, outdir_report_fn report, void *arg, size_t *n_refused,
                  struct rr_error *err)
{
    _cleanup_free_ struct walk *w = calloc(1, sizeof(*w));
    struct stat st;
    int in, r = 0;

    *n_refused = 0;
    if (w == NULL)
        return rr_fail(err, ENOMEM, "/out");
    if (fstat(to, &st) < 0)
        return rr_fail(err, errno, "out-dir");
    *w = (struct walk){.owner = st.st_uid, .group = st.st_gid, .report = report, .arg = arg,
                       .refused = n_refused};
    in = openat(from, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    w->from[0] = in < 0 ? NULL : fdopendir(in);
    if (w->from[0] == NULL) {
        if (in >= 0)
            close(in);
        return rr_fail(err, errno, "/out");
    }
    w->to[0] = dup(to);
    for (;;) {
        struct dirent *de;
        errno = 0;
        de = readdir(w->from[w->depth]);
        if (de == NULL) {
            if (errno != 0 && r == 0)
                r = rr_fail(err, errno, "/out: read a directory");
            closedir(w->from[w->depth]);
            close(w->to[w->depth]);
            if (w->depth == 0)
                break;
            w->depth--;
            continue;
        }
        if (r != 0 || strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        r = visit(w, de->d_name, err);
    }
    return r;
}
