/* The walk over the upper: an explicit stack of directory fds (no recursion
 * a deep tree could overflow), each entry looked at with fstatat relative to
 * its directory, opened with O_NOFOLLOW|O_NONBLOCK|O_NOCTTY beneath it, and
 * checked before it is read. A refusal is recorded and the walk goes on, so
 * the operator sees every offending path; only a cap stops it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitclass.h"
#include "writeback/base/markers.h"
#include "writeback/names/names.h"
#include "writeback/scan/scan_entry.h"
#include "writeback/scan/scan_int.h"

static bool kernel_format(const struct scanner *sc)
{
    return sc->in->format != WB_FORMAT_FUSE_OVERLAYFS;
}

/* A whiteout at sc->path[0..len) for name in f. */
static int whiteout(struct scanner *sc, struct uframe *f, const char *name, size_t len)
{
    struct wb_obj base, none = {0};
    bool skip, ignored, kept = false;
    int r = 0, lfd;

    if (f->lower_visible && sc_git_deleted_ignored(sc, f->lfd, name, len, &ignored) < 0)
        return -1;
    if (f->lower_visible && ignored)
        return 0;
    if (sc_lower_obj(sc, f->lfd, name, len, &base, &skip) < 0)
        return -1;
    if (!skip && (!f->lower_visible || base.type == WB_T_NONE)) {
        /* The kernel never writes one there; fuse-overlayfs leaves such
         * harmless leftovers (a removed opaque directory). */
        if (kernel_format(sc))
            r = sc_refuse(sc, len, "impossible-marker",
                          f->lower_visible ? "whiteout with nothing in the checkout beneath it"
                                           : "whiteout inside an opaque or new directory");
        skip = true;
    }
    if (!skip && (r = sc_index(sc, len, WB_U_WHITEOUT, false, NULL)) == 0 &&
        base.type == WB_T_DIR) {
        if ((lfd = sc_open_dir(f->lfd, name)) < 0)
            r = rr_fail(sc->err, errno, "lower %s", sc->path);
        else
            r = sc_hidden_lower(sc, lfd, -1, len, true, &kept);
        if (lfd >= 0)
            close(lfd);
    }
    /* git has no directories: one that keeps ignored files stays. */
    if (!skip && r == 0 && !kept)
        r = sc_change(sc, len, &base, &none);
    wb_obj_free(&base);
    return r;
}

/* fuse-overlayfs' own names: ".wh..wh..opq" (an empty file: its directory is
 * opaque), ".wh..opq" (a whiteout it leaves beside it), ".wh.NAME" (an empty
 * file: NAME is deleted). Anything else with the prefix is planted. */
static int fuse_marker(struct scanner *sc, struct uframe *f, const char *name,
                       const struct stat *st, size_t len)
{
    const char *target = name + strlen(WB_WH_PREFIX), *why;
    bool empty_file = S_ISREG(st->st_mode) && st->st_size == 0 && st->st_nlink == 1;
    struct stat tst;
    size_t tlen;

    if (strcmp(name, WB_FUSE_OPAQUE_FILE) == 0 && empty_file)
        return f->plen > 0
                   ? 0
                   : sc_refuse(sc, len, "impossible-marker", "opaque marker on the top directory");
    if (strcmp(name, WB_FUSE_OPAQUE_WHITEOUT) == 0 && S_ISCHR(st->st_mode) && st->st_rdev == 0)
        return 0;
    if (!empty_file || wb_name_is_wh_marker(target))
        return sc_refuse(sc, len, "foreign-marker", "a .wh. entry fuse-overlayfs does not write");
    if ((why = wb_name_problem(target, strlen(target), sc->pol->max_name_bytes)) != NULL)
        return sc_refuse(sc, len, wb_problem_code(why, "path"), "whiteout of a refused name: %s",
                         why);
    if (fstatat(f->ufd, target, &tst, AT_SYMLINK_NOFOLLOW) == 0)
        return sc_refuse(sc, len, "impossible-marker", "whiteout beside an entry of its name");
    if (!sc_child_path(sc, f->plen, target, &tlen))
        return sc_refuse(sc, len, "path", "path longer than the cap");
    if ((why = wb_path_problem(sc->path, tlen, sc->pol)) != NULL)
        return sc_refuse(sc, tlen, wb_problem_code(why, "path"), "%s", why);
    return whiteout(sc, f, target, tlen);
}

/* A file or symlink over the checkout's directory: everything in that
 * directory is gone from the merged view (unless an opaque directory above
 * already said so). */
static int hide_replaced_dir(struct scanner *sc, struct uframe *f, const struct sc_entry *e,
                             const struct wb_obj *base)
{
    int lfd, r;

    if (base->type != WB_T_DIR || !f->lower_visible)
        return 0;
    if ((lfd = sc_open_dir(f->lfd, e->name)) < 0)
        return rr_fail(sc->err, errno, "lower %s", sc->path);
    /* The directory goes for the file: what git ignores in it goes too. */
    r = sc_hidden_lower(sc, lfd, -1, e->len, false, NULL);
    close(lfd);
    return r;
}

static int new_file(struct scanner *sc, struct uframe *f, const struct sc_entry *e,
                    const struct wb_obj *base)
{
    struct wb_obj new = {.type = WB_T_FILE, .exec = (e->st->st_mode & S_IXUSR) != 0};
    struct wb_content c;
    bool ignored;
    int kind;

    /* Build output is left out before it is read or counted against a cap. */
    if (base->type == WB_T_NONE && sc_git_ignored(sc, f, e->len, false, &ignored) < 0)
        return -1;
    if (base->type == WB_T_NONE && ignored)
        return sc_index(sc, e->len, WB_U_FILE, false, NULL);
    if ((uint64_t)e->st->st_size > sc->pol->max_file_bytes)
        return sc_refuse(sc, e->len, "file-cap", "%ju bytes, over the per-file cap of %ju",
                         (uintmax_t)e->st->st_size, (uintmax_t)sc->pol->max_file_bytes);
    if (sc->total_refused)
        return 0; /* refused already: the rest is not read, the cost stays bounded */
    if (wb_hash_fd(e->fd, (uint64_t)e->st->st_size, sc->pol->max_file_bytes, sc->in->deny, &c,
                   sc->err) < 0)
        return rr_wrap(sc->err, "%s", sc->path);
    if (c.over_cap)
        return sc_refuse(sc, e->len, "file-cap", "grew over the per-file cap while read");
    if (c.secret && sc_refuse(sc, e->len, "secret", "content holds a --deny-content secret") < 0)
        return -1;
    new.size = c.size;
    new.unsafe = c.unsafe;
    memcpy(new.sha256, c.sha256, WB_SHA256_LEN);
    kind = wb_kind_of(base, &new);
    /* A checkout file the rules ignore counts only if an index tracks it. */
    if (kind >= 0 && base->type != WB_T_NONE && sc_git_ignored(sc, f, e->len, true, &ignored) < 0)
        return -1;
    if (kind >= 0 && base->type != WB_T_NONE && ignored)
        return sc_index(sc, e->len, WB_U_FILE, false, NULL);
    if (kind >= 0 && (sc->total_bytes += c.size) > sc->pol->max_total_bytes && !sc->total_refused) {
        sc->total_refused = true;
        if (sc_refuse(sc, 0, "total-cap", "new content over the cap of %ju bytes in all",
                      (uintmax_t)sc->pol->max_total_bytes) < 0)
            return -1;
    }
    if (hide_replaced_dir(sc, f, e, base) < 0 || sc_index(sc, e->len, WB_U_FILE, false, NULL) < 0)
        return -1;
    return sc_change(sc, e->len, base, &new);
}

static int new_symlink(struct scanner *sc, struct uframe *f, const struct sc_entry *e,
                       const struct wb_obj *base)
{
    _cleanup_free_ char *target = NULL;
    struct wb_obj new = {.type = WB_T_SYMLINK};
    const char *why;
    size_t tlen;
    bool ignored;

    if (wb_readlink(f->ufd, e->name, sc->pol->max_path_bytes, &target, &tlen, sc->err) < 0)
        return sc->err->errnum == ENAMETOOLONG
                   ? sc_refuse(sc, e->len, "symlink", "target longer than the path cap")
                   : rr_wrap(sc->err, "%s", sc->path);
    /* A venv's bin/python -> /usr/bin/python3 is left out before it is judged. */
    if ((base->type != WB_T_SYMLINK || strcmp(base->target, target) != 0) &&
        sc_git_ignored(sc, f, e->len, base->type != WB_T_NONE, &ignored) < 0)
        return -1;
    if ((base->type != WB_T_SYMLINK || strcmp(base->target, target) != 0) && ignored)
        return sc_index(sc, e->len, WB_U_SYMLINK, false, target);
    if ((why = wb_target_problem(target, tlen, sc->pol)) != NULL)
        return sc_refuse(sc, e->len, wb_problem_code(why, "symlink"), "%s", why);
    if (wb_deny_match(sc->in->deny, target, tlen) &&
        sc_refuse(sc, e->len, "secret", "target holds a --deny-content secret") < 0)
        return -1;
    new.target = target;
    new.size = tlen;
    wb_sha256(target, tlen, new.sha256);
    if (hide_replaced_dir(sc, f, e, base) < 0 ||
        sc_index(sc, e->len, WB_U_SYMLINK, false, target) < 0)
        return -1;
    return sc_change(sc, e->len, base, &new);
}

static bool fuse_opaque(const struct scanner *sc, int dirfd)
{
    struct stat st;

    return !kernel_format(sc) &&
           fstatat(dirfd, WB_FUSE_OPAQUE_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISREG(st.st_mode);
}

static int push_dir(struct scanner *sc, struct walk *w, int *ufd, int lfd, bool visible,
                    const struct stat *st, size_t len, size_t dir_change)
{
    struct uframe *nf;

    if (w->depth > WB_DEPTH_HARD_MAX) {
        if (lfd >= 0)
            close(lfd);
        return sc_refuse(sc, len, "path", WB_DEPTH_HARD_TEXT);
    }
    nf = &w->stack[w->depth];
    *nf = (struct uframe){.ufd = *ufd,
                          .lfd = lfd,
                          .lower_visible = visible,
                          .sgid = (st->st_mode & S_ISGID) != 0,
                          .plen = len,
                          .dir_change = dir_change,
                          .cs_mark = sc->out->cs.n,
                          .drops_mark = sc->n_drops};
    if (sc->git != NULL &&
        wb_git_enter(sc->git, sc->path, len, *ufd, visible ? lfd : -1, lfd, sc->err) < 0) {
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    if (wb_read_names(*ufd, sc->walk_cap, &nf->names, &nf->n, sc->err) < 0) {
        if (lfd >= 0)
            close(lfd);
        if (sc->git != NULL)
            wb_git_leave(sc->git);
        return sc_names_failed(sc, len);
    }
    rr_steal_fd(ufd);
    w->depth++;
    return 0;
}

static int new_dir(struct scanner *sc, struct walk *w, struct uframe *f, struct sc_entry *e,
                   int *fd, const struct sc_marks *m, const struct wb_obj *base)
{
    struct wb_obj new = {.type = WB_T_DIR};
    bool opaque = m->opaque || fuse_opaque(sc, *fd), ignored;
    size_t dir_change = SIZE_MAX;
    int lfd = -1;

    if (base->type == WB_T_NONE && sc_git_ignored_dir(sc, f, *fd, e->len, &ignored) < 0)
        return -1;
    if (base->type == WB_T_NONE && ignored)
        return 0;

    if (kernel_format(sc) && !opaque && f->lower_visible && base->type != WB_T_NONE &&
        base->type != WB_T_DIR &&
        sc_refuse(sc, e->len, "impossible-marker",
                  "directory over the checkout's %s without an opaque marker",
                  wb_type_name(base->type)) < 0)
        return -1;
    if (base->type == WB_T_DIR && (lfd = sc_open_dir(f->lfd, e->name)) < 0)
        return rr_fail(sc->err, errno, "lower %s", sc->path);
    if (opaque && f->lower_visible && lfd >= 0 &&
        sc_hidden_lower(sc, lfd, *fd, e->len, true, NULL) < 0) {
        close(lfd);
        return -1;
    }
    if (base->type == WB_T_NONE)
        dir_change = sc->out->cs.n;
    if (sc_index(sc, e->len, WB_U_DIR, opaque, NULL) < 0 || sc_change(sc, e->len, base, &new) < 0) {
        if (lfd >= 0)
            close(lfd);
        return -1;
    }
    return push_dir(sc, w, fd, lfd, f->lower_visible && !opaque && lfd >= 0, e->st, e->len,
                    dir_change);
}

/* The checkout's directory here has setgid, or the parent passes it down. */
static bool sgid_inherited(const struct uframe *f, const char *name)
{
    struct stat lst;

    return f->sgid || (f->lfd >= 0 && fstatat(f->lfd, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 &&
                       S_ISDIR(lst.st_mode) && (lst.st_mode & S_ISGID));
}

/* Open a file or directory of the upper and make sure it is what fstatat saw. */
static int open_entry(struct scanner *sc, struct sc_entry *e, int *fd, bool *refused)
{
    int flags = O_RDONLY | O_NONBLOCK | (S_ISDIR(e->st->st_mode) ? O_DIRECTORY : 0);
    struct stat fst;

    *refused = false;
    if (S_ISLNK(e->st->st_mode))
        return 0;
    *fd = wb_openat_beneath(e->dirfd, e->name, flags, 0);
    if (*fd < 0 && errno == EACCES) {
        *refused = true;
        return sc_refuse(sc, e->len, "unreadable", "the stage may not read it");
    }
    if (*fd < 0 || fstat(*fd, &fst) < 0)
        return rr_fail(sc->err, errno, "upper %s", sc->path);
    if (fst.st_ino != e->st->st_ino || fst.st_dev != e->st->st_dev)
        return rr_fail(sc->err, ESTALE, "upper %s changed during the walk", sc->path);
    e->fd = *fd;
    return 0;
}

/* The per-entry checks; *skip when the entry may not be read further. */
static int check_entry(struct scanner *sc, struct uframe *f, struct sc_entry *e, int *fd,
                       struct sc_marks *m, bool *skip)
{
    bool links, mode, unreadable;
    /* asked only where it can matter: the checkout is not stat'ed twice */
    bool sgid = S_ISDIR(e->st->st_mode) && (e->st->st_mode & S_ISGID) && sgid_inherited(f, e->name);

    *skip = true;
    if (sc_check_links(sc, e, &links) < 0 || sc_check_mode(sc, e, sgid, &mode) < 0 ||
        sc_check_readable(sc, e, &unreadable) < 0)
        return -1;
    if (unreadable)
        return 0;
    if (open_entry(sc, e, fd, &unreadable) < 0 || unreadable)
        return unreadable ? 0 : -1;
    if (sc_check_xattrs(sc, e, m) < 0)
        return -1;
    /* A refused file is not read; a refused directory still is, so that
     * everything below it gets its reasons too. */
    *skip = !S_ISDIR(e->st->st_mode) && (links || mode || m->refused);
    return 0;
}

static int real_entry(struct scanner *sc, struct walk *w, struct uframe *f, const char *name,
                      const struct stat *st, size_t len)
{
    struct sc_entry e = {.fd = -1, .dirfd = f->ufd, .name = name, .st = st, .len = len};
    _cleanup_close_ int fd = -1;
    struct wb_obj base;
    struct sc_marks m = {0};
    bool skip;
    int r;

    if (check_entry(sc, f, &e, &fd, &m, &skip) < 0)
        return -1;
    if (skip)
        return 0;
    if (sc_lower_obj(sc, f->lfd, name, len, &base, &skip) < 0)
        return -1;
    if (skip)
        r = 0;
    else if (S_ISREG(st->st_mode))
        r = new_file(sc, f, &e, &base);
    else if (S_ISLNK(st->st_mode))
        r = new_symlink(sc, f, &e, &base);
    else
        r = new_dir(sc, w, f, &e, &fd, &m, &base);
    wb_obj_free(&base);
    return r;
}

static int visit(struct scanner *sc, struct walk *w)
{
    struct uframe *f = &w->stack[w->depth - 1];
    const char *name = f->names[f->i++], *why;
    struct stat st;
    size_t len;

    if (!sc_count(sc))
        return 0;
    if (!sc_child_path(sc, f->plen, name, &len))
        return sc_refuse(sc, f->plen, "path", "a path below is longer than the cap");
    if (fstatat(f->ufd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(sc->err, errno, "upper %s", sc->path);
    if (sc_git_scratch_dir(sc, f, name, &st))
        return 0;
    if (wb_name_is_wh_marker(name))
        return kernel_format(sc) ? sc_refuse(sc, len, "foreign-marker",
                                             "a .wh. name is another format's whiteout marker")
                                 : fuse_marker(sc, f, name, &st, len);
    if ((why = wb_path_problem(sc->path, len, sc->pol)) != NULL)
        return sc_refuse(sc, len, wb_problem_code(why, "path"), "%s", why);
    if (S_ISCHR(st.st_mode) && st.st_rdev == 0)
        return whiteout(sc, f, name, len);
    if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
        return sc_refuse(sc, len, "special", "device node, fifo or socket");
    return real_entry(sc, w, f, name, &st, len);
}

static void pop(struct walk *w)
{
    struct uframe *f = &w->stack[--w->depth];

    close(f->ufd);
    if (f->lfd >= 0)
        close(f->lfd);
    wb_free_names(f->names, f->n);
}

/* The top: its xattrs (uuid, impure) are checked like any directory's. */
static int push_top(struct scanner *sc, struct walk *w)
{
    _cleanup_close_ int ufd = openat(sc->out->upper_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int lfd = openat(sc->out->lower_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    struct sc_marks m;
    struct sc_entry e = {.dirfd = -1, .name = ".", .st = &st};

    if (ufd < 0 || lfd < 0 || fstat(ufd, &st) < 0) {
        int saved = errno;
        if (lfd >= 0)
            close(lfd);
        return rr_fail(sc->err, saved, "open the upper and the lower");
    }
    e.fd = ufd;
    sc->path[0] = '\0';
    if (sc_check_xattrs(sc, &e, &m) < 0) {
        close(lfd);
        return -1;
    }
    return push_dir(sc, w, &ufd, lfd, true, &st, 0, SIZE_MAX);
}

static int walk_upper(struct scanner *sc)
{
    struct walk w = {.stack = calloc(WB_DEPTH_HARD_MAX + 2, sizeof(struct uframe))};
    int r;

    if (w.stack == NULL)
        return rr_fail(sc->err, ENOMEM, "walking the upper");
    r = push_top(sc, &w);
    while (r == 0 && w.depth > 0 && !sc->out->stopped) {
        if (w.stack[w.depth - 1].i < w.stack[w.depth - 1].n)
            r = visit(sc, &w);
        else if ((r = sc_git_leave(sc, &w)) == 0)
            pop(&w);
    }
    while (w.depth > 0)
        pop(&w);
    free(w.stack);
    return r;
}

static int cmp_idx(const void *x, const void *y)
{
    const struct wb_upper_entry *a = x, *b = y;
    return wb_path_cmp(a->path, a->len, b->path, b->len);
}

const struct wb_upper_entry *wb_scan_find(const struct wb_scan *s, const char *path, size_t len)
{
    struct wb_upper_entry key = {.path = (char *)path, .len = len};

    /* an empty upper has no index (NULL), which bsearch may not be given */
    return s->n_idx == 0 ? NULL : bsearch(&key, s->idx, s->n_idx, sizeof(key), cmp_idx);
}

static int dup_dir(int fd)
{
    return openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int wb_scan_run(const struct wb_scan_input *in, struct wb_scan *out, struct rr_error *err)
{
    const struct rr_writeback_policy *pol = in->pol;
    struct scanner sc = {.in = in, .out = out, .pol = pol, .err = err};
    int r;

    *out = (struct wb_scan){.format = in->format, .pol = pol, .deny = in->deny};
    out->lower_fd = dup_dir(in->lower_fd);
    out->upper_fd = dup_dir(in->upper_fd);
    if (out->lower_fd < 0 || out->upper_fd < 0) {
        r = rr_fail(err, errno, "open the lower and the upper");
        wb_scan_free(out);
        return r;
    }
    sc.walk_cap = (size_t)pol->max_files * WB_WALK_FACTOR + 64;
    sc.path_cap = (size_t)pol->max_path_bytes + 512;
    if ((sc.path = malloc(sc.path_cap)) == NULL)
        r = rr_fail(err, ENOMEM, "scan");
    else if ((r = sc_git_open(&sc)) == 0)
        r = walk_upper(&sc);
    if (r == 0)
        sc_git_compact(&sc);
    if (r == 0 && sc.git != NULL)
        r = sc_git_after(&sc);
    wb_git_close(sc.git);
    free(sc.drops);
    free(sc.path);
    wb_changeset_sort(&out->cs);
    if (out->n_idx > 1)
        qsort(out->idx, out->n_idx, sizeof(out->idx[0]), cmp_idx);
    return r;
}

void wb_scan_free(struct wb_scan *s)
{
    wb_changeset_free(&s->cs);
    for (size_t i = 0; i < s->n_idx; i++) {
        free(s->idx[i].path);
        free(s->idx[i].target);
    }
    free(s->idx);
    if (s->lower_fd >= 0)
        close(s->lower_fd);
    if (s->upper_fd >= 0)
        close(s->upper_fd);
    s->idx = NULL;
    s->n_idx = s->cap_idx = 0;
    s->lower_fd = s->upper_fd = -1;
}
