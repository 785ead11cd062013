#include "writeback/gitworktree.h"

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
#include "writeback/fsutil.h"
#include "writeback/gitclass.h"
#include "writeback/gitfile.h"

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
    if (len == 0)
        return "an empty path";
    if (len >= PATH_MAX)
        return "a path of 4096 bytes or more";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
            return "a control byte in the path";
    return NULL;
}

/* The checkout's owner owns it, it is of this type, and, a directory, no
 * one else may write it (they could write the rules that hide a file). */
static int owned(struct resolver *r, const char *what, const struct stat *st, mode_t type)
{
    if (S_ISLNK(st->st_mode))
        return refuse(r, "%s is a symlink", what);
    if ((st->st_mode & S_IFMT) != type)
        return refuse(r, "%s is not a %s", what, type == S_IFDIR ? "directory" : "regular file");
    if (st->st_uid != r->uid)
        return refuse(r, "%s is owned by uid %u, not by the checkout's owner (uid %u)", what,
                      (unsigned)st->st_uid, (unsigned)r->uid);
    if (type == S_IFDIR && (st->st_mode & S_IWOTH))
        return refuse(r, "%s may be written by anyone", what);
    return 1;
}

/* Open dirfd/path as O_PATH: beneath dirfd, or (a path the gitfile names)
 * anywhere, without a symlink either way. 1 with *fd, 1 with *fd -1 when it
 * is absent and optional, 0 when it may not be followed. */
static int open_owned(struct resolver *r, int dirfd, const char *path, bool beneath,
                      bool optional, mode_t type, const char *what, int *fd, struct stat *st)
{
    int k;

    *fd = beneath ? wb_openat_beneath(dirfd, path, O_PATH, 0) : wb_openat_nolinks(dirfd, path, O_PATH);
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

/* The regular file fd (a small one of git's) as a path: trailing CR and
 * LF dropped, as git does, then checked. 1 with *out, 0, or -1 (ENOMEM). */
static int read_path(struct resolver *r, int fd, const char *what, char **out, struct rr_error *err)
{
    size_t len;
    const char *why;
    int k = wb_git_read_fd(fd, WB_GITFILE_MAX, out, &len, err);

    if (k < 0 && err->errnum == ENOMEM)
        return -1;
    if (k < 0)
        return refuse(r, "%s: %s", what,
                      err->errnum == E2BIG ? "over 4096 bytes" : strerror(err->errnum));
    if (k == 0)
        return refuse(r, "%s is not a regular file", what);
    while (len > 0 && ((*out)[len - 1] == '\n' || (*out)[len - 1] == '\r'))
        len--;
    (*out)[len] = '\0';
    if ((why = wb_gitwt_path_problem(*out, len)) != NULL) {
        free(*out);
        *out = NULL;
        return refuse(r, "%s holds %s", what, why);
    }
    return 1;
}

/* A file of the worktree's git directory, named there: its text as a path. */
static int read_named(struct resolver *r, int dir, const char *name, const char *what,
                      char **out, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    struct stat st;
    int k = open_owned(r, dir, name, true, false, S_IFREG, what, &fd, &st);

    return k <= 0 ? k : read_path(r, fd, what, out, err);
}

/* The checkout's .git file: *dotgit is its inode, *gd the directory it
 * names (relative paths are the checkout's, as git takes them). */
static int open_gitdir(struct resolver *r, int lower_fd, struct stat *dotgit, int *gd,
                       struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    _cleanup_free_ char *text = NULL;
    struct stat st;
    int k;

    if ((k = open_owned(r, lower_fd, ".git", true, false, S_IFREG, "the checkout's .git", &fd,
                        dotgit)) <= 0 ||
        (k = read_path(r, fd, "the checkout's .git", &text, err)) <= 0)
        return k;
    if (strncmp(text, "gitdir: ", 8) != 0)
        return refuse(r, "the checkout's .git does not start with \"gitdir: \"");
    if (text[8] == '\0')
        return refuse(r, "the checkout's .git holds an empty path");
    return open_owned(r, lower_fd, text + 8, false, false, S_IFDIR, "the git directory it names",
                      gd, &st);
}

static bool has(int dfd, const char *name, mode_t type)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == type;
}

/* The main repository's git directory, as the worktree's commondir names it. */
static int open_common(struct resolver *r, int gd, int *cd, struct rr_error *err)
{
    _cleanup_free_ char *path = NULL;
    struct stat st;
    int k;

    if (!has(gd, "commondir", S_IFREG))
        return refuse(r, "the git directory it names is not a worktree's (no commondir file)");
    if ((k = read_named(r, gd, "commondir", "its commondir", &path, err)) <= 0 ||
        (k = open_owned(r, gd, path, false, false, S_IFDIR, "the common git directory", cd,
                        &st)) <= 0)
        return k;
    if (!has(*cd, "HEAD", S_IFREG) || !has(*cd, "objects", S_IFDIR) || !has(*cd, "refs", S_IFDIR))
        return refuse(r, "the common git directory holds no HEAD, objects/ and refs/");
    return 1;
}

/* git keeps, in the worktree's git directory, `gitdir`: the path of the
 * worktree's .git file. It must be this checkout's .git itself: a copy of
 * a worktree, or a gitfile naming another worktree's directory, is not. */
static int check_backlink(struct resolver *r, int gd, const struct stat *dotgit,
                          struct rr_error *err)
{
    _cleanup_free_ char *path = NULL;
    _cleanup_close_ int fd = -1;
    struct stat st;
    int k;

    if ((k = read_named(r, gd, "gitdir", "its back-link (gitdir)", &path, err)) <= 0)
        return k;
    if ((fd = wb_openat_nolinks(gd, path, O_PATH)) < 0)
        return refuse(r, "its back-link (gitdir) cannot be followed: %s", open_problem(errno));
    if (fstat(fd, &st) < 0)
        return refuse(r, "its back-link (gitdir): %s", strerror(errno));
    if (st.st_dev != dotgit->st_dev || st.st_ino != dotgit->st_ino)
        return refuse(r, "its back-link (gitdir) names another .git than the checkout's");
    return 1;
}

/* What the rules need from the two directories: the common info/exclude
 * and the worktree's index (both optional, as git takes them). */
static int keep(struct resolver *r, int gd, int cd, struct wb_gitwt *out, struct rr_error *err)
{
    _cleanup_close_ int info = -1, ex = -1;
    struct stat st;
    int k;

    if ((k = open_owned(r, gd, "index", true, true, S_IFREG, "its index", &out->index_fd,
                        &st)) <= 0 ||
        (k = open_owned(r, cd, "info", true, true, S_IFDIR, "the common info/", &info, &st)) <= 0)
        return k;
    if (info >= 0 && (k = open_owned(r, info, "exclude", true, true, S_IFREG,
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

int wb_gitwt_open(int lower_fd, struct wb_gitwt *out, char *why, size_t whylen,
                  struct rr_error *err)
{
    struct resolver r = {.why = why, .wl = whylen};
    _cleanup_close_ int gd = -1, cd = -1;
    struct stat top, dotgit;
    int k;

    *out = (struct wb_gitwt){.index_fd = -1};
    why[0] = '\0';
    if (fstat(lower_fd, &top) < 0)
        return refuse(&r, "the checkout: %s", strerror(errno));
    r.uid = top.st_uid;
    if ((k = open_gitdir(&r, lower_fd, &dotgit, &gd, err)) <= 0 ||
        (k = open_common(&r, gd, &cd, err)) <= 0 || (k = check_backlink(&r, gd, &dotgit, err)) <= 0 ||
        (k = keep(&r, gd, cd, out, err)) <= 0)
        wb_gitwt_free(out);
    return k;
}

void wb_gitwt_free(struct wb_gitwt *w)
{
    free(w->exclude);
    if (w->index_fd >= 0)
        close(w->index_fd);
    *w = (struct wb_gitwt){.index_fd = -1};
}
