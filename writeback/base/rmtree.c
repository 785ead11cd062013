#include "writeback/base/rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writeback/base/fsutil.h"

struct rframe {
    int fd;
    char **names;
    size_t n, i;
};

static int push(struct rframe *st, unsigned *depth, unsigned max, int parent, const char *name,
                struct rr_error *err)
{
    struct rframe *f = &st[*depth];
    int fd;

    if (*depth >= max)
        return rr_fail(err, ELOOP, "removing %s: deeper than %u", name, max);
    if ((fd = wb_openat_beneath(parent, name, O_RDONLY | O_DIRECTORY, 0)) < 0)
        return rr_fail(err, errno, "removing %s", name);
    *f = (struct rframe){.fd = fd};
    if (wb_read_names(fd, SIZE_MAX, &f->names, &f->n, err) < 0) {
        close(fd);
        return -1;
    }
    (*depth)++;
    return 0;
}

static void drop(struct rframe *f)
{
    close(f->fd);
    wb_free_names(f->names, f->n);
}

static int step(struct rframe *st, unsigned *depth, unsigned max, struct rr_error *err)
{
    struct rframe *f = &st[*depth - 1];
    const char *name;

    if (f->i == f->n) {
        /* Its entries are gone: remove it from its parent (the previous frame). */
        const char *self = *depth > 1 ? st[*depth - 2].names[st[*depth - 2].i - 1] : NULL;
        drop(f);
        (*depth)--;
        if (self && unlinkat(st[*depth - 1].fd, self, AT_REMOVEDIR) < 0)
            return rr_fail(err, errno, "rmdir %s", self);
        return 0;
    }
    name = f->names[f->i++];
    if (unlinkat(f->fd, name, 0) == 0)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return rr_fail(err, errno, "unlink %s", name);
    return push(st, depth, max, f->fd, name, err);
}

int wb_rmtree_at(int dirfd, const char *name, unsigned max_depth, struct rr_error *err)
{
    struct rframe *st;
    unsigned depth = 0;
    int r;

    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return rr_fail(err, errno, "unlink %s", name);
    if ((st = calloc(max_depth + 1, sizeof(*st))) == NULL)
        return rr_fail(err, ENOMEM, "removing %s", name);
    r = push(st, &depth, max_depth, dirfd, name, err);
    while (r == 0 && depth > 0)
        r = step(st, &depth, max_depth, err);
    while (depth > 0)
        drop(&st[--depth]);
    free(st);
    if (r == 0 && unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
        return rr_fail(err, errno, "rmdir %s", name);
    return r;
}
