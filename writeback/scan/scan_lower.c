/* The lower side of the walk: what the checkout holds at a path (the base of
 * a change), and the lower subtrees that the merged view no longer shows. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitclass.h"
#include "writeback/names/names.h"
#include "writeback/scan/scan_int.h"

int sc_open_dir(int dirfd, const char *name)
{
    return wb_openat_beneath(dirfd, name, O_RDONLY | O_DIRECTORY, 0);
}

static int lower_file(struct scanner *sc, int dirfd, const char *name, const struct stat *st,
                      size_t plen, struct wb_obj *o, bool *skip)
{
    _cleanup_close_ int fd = -1;
    struct wb_content c;
    struct stat fst;

    if ((uint64_t)st->st_size > sc->pol->max_file_bytes) {
        *skip = true;
        return sc_refuse(sc, plen, "file-cap",
                         "the checkout's file is over the per-file cap "
                         "(%ju bytes), its base cannot be verified",
                         (uintmax_t)st->st_size);
    }
    fd = wb_openat_beneath(dirfd, name, O_RDONLY | O_NONBLOCK, 0);
    if (fd < 0 || fstat(fd, &fst) < 0)
        return rr_fail(sc->err, errno, "lower %.*s", (int)plen, sc->path);
    if (fst.st_ino != st->st_ino || fst.st_dev != st->st_dev)
        return rr_fail(sc->err, ESTALE, "lower %.*s changed while read", (int)plen, sc->path);
    if (wb_hash_fd(fd, (uint64_t)fst.st_size, sc->pol->max_file_bytes, NULL, &c, sc->err) < 0)
        return rr_wrap(sc->err, "lower %.*s", (int)plen, sc->path);
    o->type = WB_T_FILE;
    o->exec = (fst.st_mode & S_IXUSR) != 0;
    o->size = c.size;
    o->unsafe = c.unsafe;
    memcpy(o->sha256, c.sha256, WB_SHA256_LEN);
    return 0;
}

int sc_lower_obj(struct scanner *sc, int dirfd, const char *name, size_t plen, struct wb_obj *o,
                 bool *skip)
{
    struct stat st;
    size_t len;

    *o = (struct wb_obj){0};
    *skip = false;
    if (dirfd < 0)
        return 0;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : rr_fail(sc->err, errno, "lower %.*s", (int)plen, sc->path);
    switch (st.st_mode & S_IFMT) {
    case S_IFDIR:
        o->type = WB_T_DIR;
        return 0;
    case S_IFLNK:
        if (wb_readlink(dirfd, name, 4096, &o->target, &len, sc->err) < 0)
            return rr_wrap(sc->err, "lower %.*s", (int)plen, sc->path);
        o->type = WB_T_SYMLINK;
        o->size = len;
        wb_sha256(o->target, len, o->sha256);
        return 0;
    case S_IFREG:
        return lower_file(sc, dirfd, name, &st, plen, o, skip);
    default:
        *skip = true;
        return sc_refuse(sc, plen, "lower-special",
                         "the checkout has a device, fifo or socket at a changed path");
    }
}

struct hframe {
    int lfd, ufd;
    bool owned;   /* the fds were opened here (the first frame's are the caller's) */
    bool entered; /* its ignore file joined the checkout's rules */
    bool kept;    /* something below stays in the target: ignored, untracked */
    size_t dir_change; /* the change deleting this directory, or SIZE_MAX */
    size_t plen;
    char **names;
    size_t n, i;
};

/* A walk of one hidden subtree. keep_ignored: ignored untracked entries
 * stay (false where the directory must go: a file replaced it). */
struct hwalk {
    struct hframe *stack;
    size_t depth;
    bool keep_ignored;
};

static void hframe_release(struct scanner *sc, struct hframe *f)
{
    if (f->entered)
        wb_git_leave_lower(sc->git);
    if (f->owned) {
        close(f->lfd);
        if (f->ufd >= 0)
            close(f->ufd);
    }
    wb_free_names(f->names, f->n);
}

static int push_frame(struct scanner *sc, struct hwalk *w, int lfd, int ufd, size_t plen,
                      bool owned, size_t dir_change)
{
    struct hframe *f = &w->stack[w->depth];

    *f = (struct hframe){
        .lfd = lfd, .ufd = ufd, .owned = owned, .plen = plen, .dir_change = dir_change};
    if (w->depth >= WB_DEPTH_HARD_MAX) {
        if (owned) {
            close(lfd);
            if (ufd >= 0)
                close(ufd);
        }
        return sc_refuse(sc, plen, "path", WB_DEPTH_HARD_TEXT);
    }
    if (wb_read_names(lfd, sc->walk_cap, &f->names, &f->n, sc->err) < 0) {
        f->names = NULL;
        f->n = 0;
        hframe_release(sc, f);
        return sc_names_failed(sc, plen);
    }
    if (sc->git != NULL) {
        if (wb_git_enter_lower(sc->git, sc->path, plen, lfd, sc->err) < 0) {
            hframe_release(sc, f);
            return -1;
        }
        f->entered = true;
    }
    w->depth++;
    return 0;
}

/* Is name in the upper directory ufd as something the merged view shows? */
static int upper_has(struct scanner *sc, int ufd, const char *name, struct stat *st, bool *has)
{
    *has = false;
    if (ufd < 0)
        return 0;
    if (fstatat(ufd, name, st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : rr_fail(sc->err, errno, "upper %s", sc->path);
    *has = !(S_ISCHR(st->st_mode) && st->st_rdev == 0); /* a whiteout shows nothing */
    return 0;
}

/* A lower entry the upper still has: its subtree may hide more. */
static int descend_present(struct scanner *sc, struct hwalk *w, struct hframe *f,
                           const char *name, const struct stat *ust, size_t len)
{
    struct stat lst;
    int lfd, ufd = -1;

    if (fstatat(f->lfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(lst.st_mode))
        return 0;
    if ((lfd = sc_open_dir(f->lfd, name)) < 0)
        return rr_fail(sc->err, errno, "lower %.*s", (int)len, sc->path);
    if (S_ISDIR(ust->st_mode) && (ufd = sc_open_dir(f->ufd, name)) < 0) {
        close(lfd);
        return rr_fail(sc->err, errno, "upper %.*s", (int)len, sc->path);
    }
    return push_frame(sc, w, lfd, ufd, len, true, SIZE_MAX);
}

static int delete_lower(struct scanner *sc, struct hwalk *w, struct hframe *f, const char *name,
                        size_t len)
{
    struct wb_obj base, none = {0};
    const char *why = wb_path_problem(sc->path, len, sc->pol);
    size_t at = sc->out->cs.n;
    bool skip, ignored = false;
    int r, lfd;

    if (why != NULL)
        return sc_refuse(sc, len, wb_problem_code(why, "path"), "%s", why);
    if (w->keep_ignored && sc_git_deleted_ignored(sc, f->lfd, name, len, &ignored) < 0)
        return -1;
    if (ignored) {
        f->kept = true;
        return 0;
    }
    if (sc_lower_obj(sc, f->lfd, name, len, &base, &skip) < 0)
        return -1;
    if (skip)
        return 0;
    r = sc_change(sc, len, &base, &none);
    if (r == 0 && base.type == WB_T_DIR) {
        if ((lfd = sc_open_dir(f->lfd, name)) < 0)
            r = rr_fail(sc->err, errno, "lower %.*s", (int)len, sc->path);
        else
            r = push_frame(sc, w, lfd, -1, len, true, at);
    }
    wb_obj_free(&base);
    return r;
}

/* A directory done: one that keeps ignored files stays, and so does every
 * directory above it (git has no directories: they go when empty). */
static int frame_done(struct scanner *sc, struct hwalk *w, bool *kept)
{
    struct hframe *f = &w->stack[w->depth - 1];
    int r = 0;

    if (f->kept && f->dir_change != SIZE_MAX)
        r = sc_git_drop(sc, f->dir_change);
    if (f->kept && w->depth > 1)
        w->stack[w->depth - 2].kept = true;
    else if (f->kept)
        *kept = true;
    hframe_release(sc, f);
    w->depth--;
    return r;
}

static int hidden_step(struct scanner *sc, struct hwalk *w, bool *kept)
{
    struct hframe *f = &w->stack[w->depth - 1];
    const char *name;
    struct stat ust;
    size_t len;
    bool has;

    if (f->i == f->n)
        return frame_done(sc, w, kept);
    name = f->names[f->i++];
    if (!sc_count(sc))
        return 0;
    if (!sc_child_path(sc, f->plen, name, &len))
        return sc_refuse(sc, f->plen, "path", "a path below is longer than the cap");
    if (upper_has(sc, f->ufd, name, &ust, &has) < 0)
        return -1;
    if (has)
        return descend_present(sc, w, f, name, &ust, len);
    return delete_lower(sc, w, f, name, len);
}

int sc_hidden_lower(struct scanner *sc, int lfd, int ufd, size_t plen, bool keep_ignored,
                    bool *kept)
{
    _cleanup_free_ struct hframe *stack = calloc(WB_DEPTH_HARD_MAX + 1, sizeof(*stack));
    struct hwalk w = {.stack = stack, .keep_ignored = keep_ignored};
    bool k = false;
    int r = 0;

    if (kept != NULL)
        *kept = false;
    if (stack == NULL)
        return rr_fail(sc->err, ENOMEM, "walking the lower");
    if (push_frame(sc, &w, lfd, ufd, plen, false, SIZE_MAX) < 0)
        return -1;
    while (w.depth > 0 && r == 0 && !sc->out->stopped)
        r = hidden_step(sc, &w, &k);
    while (w.depth > 0)
        hframe_release(sc, &stack[--w.depth]);
    if (kept != NULL)
        *kept = k;
    return r;
}
