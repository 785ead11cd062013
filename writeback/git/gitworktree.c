#include "writeback/git/gitworktree.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/gitwt.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitclass.h"
#include "writeback/git/gitfile.h"

struct resolver {
    uid_t uid; /* the checkout's owner */
    char *why;
    size_t wl;
};

/* Not followed: why, and 0. */
__attribute__((format(printf, 2, 3))) static int refuse(struct resolver *r, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(r->why, r->wl, fmt, ap);
    va_end(ap);
    return 0;
}

static const char *open_problem(int e)
{
    switch (e) {
    case ELOOP:
        return "a symlink on the way";
    case ENOENT:
        return "it does not exist";
    case ENOTDIR:
        return "a component is not a directory";
    case EXDEV:
        return "a mount on the way";
    default:
        return strerror(e);
    }
}

const char *wb_gitwt_path_problem(const char *p, size_t len)
{
    return rr_gitwt_path_problem(p, len);
}

/* The checkout's owner owns it, it is of this type, and, a directory, no
 * one else may write it (they could write the rules that hide a file):
 * the resolver's own check, after the symlink an O_PATH open may land on. */
static int owned(struct resolver *r, const char *what, const struct stat *st, mode_t type)
{
    if (S_ISLNK(st->st_mode))
        return refuse(r, "%s is a symlink", what);
    return rr_gitwt_owned(r->uid, what, st, type, r->why, r->wl);
}

/* Open dirfd/path as O_PATH beneath dirfd, without a symlink. 1 with *fd,
 * 1 with *fd -1 when it is absent and optional, 0 when it may not be
 * followed. */
static int open_owned(struct resolver *r, int dirfd, const char *path, bool optional,
                      mode_t type, const char *what, int *fd, struct stat *st)
{
    int k;

    *fd = wb_openat_beneath(dirfd, path, O_PATH, 0);
    if (*fd < 0 && errno == ENOENT && optional)
        return 1;
    if (*fd < 0)
        return refuse(r, "%s: %s", what, open_problem(errno));
    if (fstat(*fd, st) < 0)
        k = refuse(r, "%s: %s", what, strerror(errno));
    else
        k = owned(r, what, st, type);
    if (k == 0) {
        close(*fd);
        *fd = -1;
    }
    return k;
}

/* What the rules need from the two directories: the common info/exclude
 * and the worktree's index (both optional, as git takes them). */
static int keep(struct resolver *r, int gd, int cd, struct wb_gitwt *out, struct rr_error *err)
{
    _cleanup_close_ int info = -1, ex = -1;
    struct stat st;
    int k;

    if ((k = open_owned(r, gd, "index", true, S_IFREG, "its index", &out->index_fd,
                        &st)) <= 0 ||
        (k = open_owned(r, cd, "info", true, S_IFDIR, "the common info/", &info, &st)) <= 0)
        return k;
    if (info >= 0 && (k = open_owned(r, info, "exclude", true, S_IFREG,
                                     "the common info/exclude", &ex, &st)) <= 0)
        return k;
    if (ex < 0)
        return 1;
    if ((k = wb_git_read_fd(ex, WB_GITIGNORE_MAX, &out->exclude, &out->exclude_len, err)) >= 0)
        return 1;
    if (err->errnum == E2BIG) {
        out->exclude_over_cap = true;
        return 1;
    }
    return err->errnum == ENOMEM ? -1
                                 : refuse(r, "the common info/exclude: %s", strerror(err->errnum));
}

/* The directories are found and proved this checkout's by common/gitwt.c,
 * the one resolver (the profile uses it too, to show them to git inside);
 * what the rules need is then read from them here. */
int wb_gitwt_open(int lower_fd, struct wb_gitwt *out, char *why, size_t whylen,
                  struct rr_error *err)
{
    struct resolver r = {.why = why, .wl = whylen};
    struct rr_gitwt w;
    struct stat top;
    int k;

    *out = (struct wb_gitwt){.index_fd = -1};
    why[0] = '\0';
    if (fstat(lower_fd, &top) < 0)
        return refuse(&r, "the checkout: %s", strerror(errno));
    r.uid = top.st_uid;
    if ((k = rr_gitwt_open(lower_fd, &w, why, whylen, err)) <= 0)
        return k;
    if ((k = keep(&r, w.gitdir_fd, w.common_fd, out, err)) <= 0)
        wb_gitwt_free(out);
    rr_gitwt_close(&w);
    return k;
}

void wb_gitwt_free(struct wb_gitwt *w)
{
    free(w->exclude);
    if (w->index_fd >= 0)
        close(w->index_fd);
    *w = (struct wb_gitwt){.index_fd = -1};
}
