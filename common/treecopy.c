#include "common/treecopy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

struct frame {
    DIR *src;
    int dst;
    size_t path_len; /* of copy.path when this directory was entered */
};

struct copy {
    const struct rr_copy_limits *lim;
    struct rr_copy_report *rep;
    struct frame *stack;
    size_t depth;
    char path[PATH_MAX];
};

static void skip(struct copy *c, const char *name)
{
    struct rr_copy_report *r = c->rep;
    char *copy;

    r->skipped++;
    if (r->n_skipped_names >= RR_COPY_SKIPPED_NAMES)
        return;
    if (asprintf(&copy, "%s%s%s", c->path, c->path[0] ? "/" : "", name) < 0)
        return;
    r->skipped_names[r->n_skipped_names++] = copy;
}

static mode_t mode_for(const struct copy *c, const struct stat *st)
{
    if (!c->lim->keep_mode)
        return S_ISDIR(st->st_mode) ? 0700 : 0600;
    return (st->st_mode & 0755) | (S_ISDIR(st->st_mode) ? 0700 : 0600);
}

static int own(const struct copy *c, int fd, const char *what, struct rr_error *err)
{
    if (c->lim->chown && fchown(fd, c->lim->uid, c->lim->gid) < 0)
        return rr_fail(err, errno, "chown %s", what);
    return 0;
}

/* Bytes from in to out, stopping at the total cap: a file that grows while
 * it is read cannot take more than what is left. 1: copied; 0: over the cap
 * (the partial file is removed by the caller). */
static int pump(struct copy *c, int in, int out, struct rr_error *err)
{
    char buf[65536];
    ssize_t n;

    while ((n = read(in, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 0;
        if ((uint64_t)n > c->lim->max_bytes - c->rep->bytes) {
            c->rep->capped = true;
            return 0;
        }
        if (rr_write_all(out, buf, (size_t)n) < 0)
            return rr_fail(err, errno, "write %s", c->path);
        c->rep->bytes += (uint64_t)n;
    }
    return 1;
}

/* in: open on a regular file whose stat is st. */
static int copy_open_file(struct copy *c, int in, const struct stat *st, int dst_dir,
                          const char *name, struct rr_error *err)
{
    _cleanup_close_ int out = -1;
    int r;

    out = openat(dst_dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                 mode_for(c, st));
    if (out < 0)
        return rr_fail(err, errno, "create %s/%s", c->path, name);
    if (own(c, out, name, err) < 0 || fchmod(out, mode_for(c, st)) < 0)
        return rr_fail(err, errno, "mode of %s/%s", c->path, name);
    r = pump(c, in, out, err);
    if (r < 0)
        return -1;
    if (r == 0) {
        unlinkat(dst_dir, name, 0);
        skip(c, name);
        return 0;
    }
    c->rep->files++;
    return 0;
}

/* Files and directories both count against max_files: an empty directory
 * costs the source nothing (an agent makes millions in a tmpfs) but an
 * inode and a mkdir on the host side. */
static bool over_entries(const struct copy *c)
{
    return c->rep->files + c->rep->dirs >= c->lim->max_files;
}

static bool over_caps(struct copy *c, const struct stat *st)
{
    if (!over_entries(c) && (uint64_t)st->st_size <= c->lim->max_bytes - c->rep->bytes)
        return false;
    c->rep->capped = true;
    return true;
}

static int copy_file(struct copy *c, int src_dir, int dst_dir, const char *name,
                     const struct stat *st, struct rr_error *err)
{
    _cleanup_close_ int in = -1;
    struct stat now;

    if (over_caps(c, st)) {
        skip(c, name);
        return 0;
    }
    /* O_NONBLOCK: a fifo swapped in after the stat does not hang us. */
    in = openat(src_dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (in < 0 || fstat(in, &now) < 0 || !S_ISREG(now.st_mode) || now.st_ino != st->st_ino) {
        skip(c, name);
        return 0;
    }
    return copy_open_file(c, in, &now, dst_dir, name, err);
}

int rr_copy_tree_file(int src_fd, int dst_dir, const char *name, const struct rr_copy_limits *lim,
                      struct rr_copy_report *rep, struct rr_error *err)
{
    struct copy c = {.lim = lim, .rep = rep};
    struct stat st;

    memset(rep, 0, sizeof(*rep));
    if (fstat(src_fd, &st) < 0 || !S_ISREG(st.st_mode) || over_caps(&c, &st)) {
        skip(&c, name);
        return 0;
    }
    return copy_open_file(&c, src_fd, &st, dst_dir, name, err);
}

static int enter_dir(struct copy *c, int src_dir, int dst_dir, const char *name,
                     const struct stat *st, struct rr_error *err)
{
    struct frame *f;
    int in, out;
    size_t len = strlen(c->path);

    if (c->depth >= c->lim->max_depth || over_entries(c) ||
        len + 1 + strlen(name) >= sizeof(c->path)) {
        c->rep->capped = true;
        skip(c, name);
        return 0;
    }
    in = openat(src_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0) {
        skip(c, name);
        return 0;
    }
    if (mkdirat(dst_dir, name, mode_for(c, st)) < 0 && errno != EEXIST) {
        close(in);
        return rr_fail(err, errno, "mkdir %s/%s", c->path, name);
    }
    out = openat(dst_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (out < 0 || own(c, out, name, err) < 0) {
        int e = errno;
        close(in);
        if (out >= 0)
            close(out);
        return rr_fail(err, e, "open %s/%s", c->path, name);
    }
    DIR *d = fdopendir(in);
    if (d == NULL) {
        close(in);
        close(out);
        return rr_fail(err, ENOMEM, "opendir %s", name);
    }
    f = &c->stack[++c->depth];
    *f = (struct frame){.src = d, .dst = out, .path_len = len};
    snprintf(c->path + len, sizeof(c->path) - len, "%s%s", len ? "/" : "", name);
    c->rep->dirs++;
    return 0;
}

static int one_entry(struct copy *c, const struct dirent *de, struct rr_error *err)
{
    struct frame *f = &c->stack[c->depth];
    int src = dirfd(f->src);
    struct stat st;

    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
        return 0;
    if (fstatat(src, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        skip(c, de->d_name);
        return 0;
    }
    if (S_ISREG(st.st_mode))
        return copy_file(c, src, f->dst, de->d_name, &st, err);
    if (S_ISDIR(st.st_mode))
        return enter_dir(c, src, f->dst, de->d_name, &st, err);
    skip(c, de->d_name); /* symlinks, devices, fifos, sockets */
    return 0;
}

static void leave_dir(struct copy *c)
{
    struct frame *f = &c->stack[c->depth];

    closedir(f->src);
    if (c->depth > 0)
        close(f->dst);
    c->path[f->path_len] = '\0';
    c->depth--;
}

int rr_copy_tree(int src_dir, int dst_dir, const struct rr_copy_limits *lim,
                 struct rr_copy_report *rep, struct rr_error *err)
{
    struct copy c = {.lim = lim, .rep = rep};
    int top = fcntl(src_dir, F_DUPFD_CLOEXEC, 3);
    int r = 0;

    memset(rep, 0, sizeof(*rep));
    c.stack = calloc((size_t)lim->max_depth + 1, sizeof(*c.stack));
    if (c.stack == NULL || top < 0) {
        free(c.stack);
        if (top >= 0)
            close(top);
        return rr_fail(err, ENOMEM, "copy");
    }
    /* The dup shares its offset with src_dir: start from the beginning. */
    lseek(top, 0, SEEK_SET);
    c.stack[0] = (struct frame){.src = fdopendir(top), .dst = dst_dir};
    if (c.stack[0].src == NULL) {
        close(top);
        free(c.stack);
        return rr_fail(err, errno, "opendir");
    }
    for (;;) {
        struct dirent *de;
        errno = 0;
        de = readdir(c.stack[c.depth].src);
        if (de == NULL) {
            bool last = c.depth == 0;
            leave_dir(&c);
            if (last)
                break;
            continue;
        }
        if ((r = one_entry(&c, de, err)) < 0)
            break;
    }
    while (r < 0 && c.depth != (size_t)-1)
        leave_dir(&c);
    free(c.stack);
    return r;
}

void rr_copy_report_free(struct rr_copy_report *rep)
{
    for (size_t i = 0; i < rep->n_skipped_names; i++)
        free(rep->skipped_names[i]);
    rep->n_skipped_names = 0;
}
