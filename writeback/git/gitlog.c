#include "writeback/git/gitlog.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/gitwt.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/git2.h"
#include "writeback/git/gitfile.h"
#include "writeback/git/gitobj.h"

/* ---- the count under .git ---- */

struct gframe {
    int fd;
    char **names;
    size_t n, i;
};

static void gpop(struct gframe *st, unsigned *depth)
{
    struct gframe *f = &st[--*depth];

    close(f->fd);
    wb_free_names(f->names, f->n);
}

struct gcount {
    uint64_t n, cap;
    bool more; /* stopped at the cap or the depth: at least n */
};

/* Push dir (an fd we own) on the stack. */
static int gpush(struct gframe *st, unsigned *depth, int fd, struct gcount *c,
                 struct rr_error *err)
{
    struct gframe *f = &st[*depth];

    *f = (struct gframe){.fd = fd};
    if (wb_read_names(fd, c->cap, &f->names, &f->n, err) < 0) {
        close(fd);
        if (err->errnum != E2BIG)
            return -1;
        c->more = true;
        return 0;
    }
    (*depth)++;
    return 0;
}

static int gvisit(struct gframe *st, unsigned *depth, struct gcount *c, struct rr_error *err)
{
    struct gframe *f = &st[*depth - 1];
    const char *name = f->names[f->i++];
    struct stat sb;
    int fd;

    if (fstatat(f->fd, name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : rr_fail(err, errno, "%s", name);
    if (!S_ISDIR(sb.st_mode)) {
        if (++c->n >= c->cap)
            c->more = true;
        return 0;
    }
    if (*depth >= WB_COUNT_DEPTH) {
        c->more = true; /* not counted below */
        return 0;
    }
    if ((fd = wb_openat_beneath(f->fd, name, O_RDONLY | O_DIRECTORY, 0)) < 0)
        return errno == EACCES ? 0 : rr_fail(err, errno, "%s", name);
    return gpush(st, depth, fd, c, err);
}

int wb_git_count(int dirfd, uint64_t cap, uint64_t *n, bool *more, struct rr_error *err)
{
    struct gframe *st = calloc(WB_COUNT_DEPTH + 1, sizeof(*st));
    struct gcount c = {.cap = cap};
    unsigned depth = 0;
    int fd, r = 0;

    if (st == NULL)
        return rr_fail(err, ENOMEM, "count");
    if ((fd = wb_openat_beneath(dirfd, ".", O_RDONLY | O_DIRECTORY, 0)) < 0)
        r = rr_fail(err, errno, "count");
    else
        r = gpush(st, &depth, fd, &c, err);
    while (r == 0 && depth > 0 && !c.more) {
        if (st[depth - 1].i == st[depth - 1].n)
            gpop(st, &depth);
        else
            r = gvisit(st, &depth, &c, err);
    }
    while (depth > 0)
        gpop(st, &depth);
    free(st);
    *n = c.n;
    *more = c.more;
    return r;
}

int wb_git_scratch(int upper_fd, struct wb_gitinfo *gi, struct rr_error *err)
{
    _cleanup_close_ int fd = wb_openat_beneath(upper_fd, ".git", O_RDONLY | O_DIRECTORY, 0);

    if (fd < 0)
        return 0;
    if (wb_git_count(fd, WB_SCRATCH_CAP, &gi->scratch, &gi->scratch_more, err) < 0)
        return rr_wrap(err, "upper .git");
    return 0;
}

/* ---- refs ---- */

static bool is_hex40(const char *s, size_t len)
{
    if (len != 40)
        return false;
    for (size_t i = 0; i < 40; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return false;
    return true;
}

int wb_git_packed_ref(const char *text, size_t len, const char *refname, char hex[41])
{
    size_t rlen = strlen(refname), pos = 0;

    while (pos < len) {
        const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
        size_t llen = nl ? (size_t)(nl - line) : len - pos;
        pos += llen + 1;
        if (llen > 0 && line[llen - 1] == '\r')
            llen--;
        if (llen == 41 + rlen && line[40] == ' ' && is_hex40(line, 40) &&
            memcmp(line + 41, refname, rlen) == 0) {
            memcpy(hex, line, 40);
            hex[40] = '\0';
            return 1;
        }
    }
    return 0;
}

struct gitdirs {
    int upper; /* the upper's .git, or -1 (also -1 when reading the checkout alone) */
    int lower; /* the checkout's .git */
    enum wb_format fmt;
    const char *head; /* "HEAD", or a worktree's "worktrees/NAME/HEAD" (refs are common) */
};

/* The merged file .git/path (path checked by the caller: components git
 * itself would accept). */
static int read_git_file(const struct gitdirs *d, const char *path, size_t max, char **buf,
                         size_t *len, struct rr_error *err)
{
    const char *slash = strrchr(path, '/');
    _cleanup_free_ char *dir = slash ? strndup(path, (size_t)(slash - path)) : NULL;
    _cleanup_close_ int u = -1, l = -1;

    if (slash && dir == NULL)
        return rr_fail(err, ENOMEM, "git");
    if (d->upper >= 0)
        u = dir ? wb_openat_beneath(d->upper, dir, O_RDONLY | O_DIRECTORY, 0)
                : dup(d->upper);
    l = dir ? wb_openat_beneath(d->lower, dir, O_RDONLY | O_DIRECTORY, 0) : dup(d->lower);
    return wb_git_read_merged(u, l, d->fmt, slash ? slash + 1 : path, max, buf, len, err);
}

/* A ref name as git writes one for a branch or a tag, checked more strictly
 * than git does (no libgit2 needed to ask): "refs/" then components of
 * [A-Za-z0-9._+-] not starting with a dot nor ending in ".lock", no "..".
 * Anything else stops the listing (nothing is read by that name). */
bool wb_git_refname_ok(const char *name)
{
    size_t len = strlen(name), start = 5;

    if (len <= 5 || len > 255 || strncmp(name, "refs/", 5) != 0 || strstr(name, "..") != NULL)
        return false;
    for (size_t i = 5; i <= len; i++) {
        char c = name[i];
        if (c == '/' || c == '\0') {
            if (i == start || name[start] == '.' ||
                (i - start >= 5 && memcmp(name + i - 5, ".lock", 5) == 0))
                return false;
            start = i + 1;
        } else if (!isalnum((unsigned char)c) && c != '.' && c != '_' && c != '-' && c != '+') {
            return false;
        }
    }
    return true;
}

static void trim(char *s, size_t *len)
{
    while (*len > 0 && isspace((unsigned char)s[*len - 1]))
        s[--*len] = '\0';
}

/* HEAD to a commit id, through at most a few symbolic refs. 1, or 0 when
 * there is none to be had (unborn, malformed, packed beyond the cap). */
static int resolve_head(const struct gitdirs *d, char hex[41], struct rr_error *err)
{
    _cleanup_free_ char *name = strdup(d->head);

    for (int hop = 0; hop < 5 && name != NULL; hop++) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_git_file(d, name, 4096, &buf, &len, err);
        if (r < 0)
            return err->errnum == E2BIG ? 0 : -1;
        if (r == 0) {
            _cleanup_free_ char *packed = NULL;
            if (strcmp(name, d->head) == 0 ||
                (r = read_git_file(d, "packed-refs", WB_PACKED_REFS_MAX, &packed, &len, err)) < 0)
                return r < 0 && err->errnum != E2BIG ? -1 : 0;
            return r == 1 ? wb_git_packed_ref(packed, len, name, hex) : 0;
        }
        trim(buf, &len);
        if (is_hex40(buf, len)) {
            memcpy(hex, buf, 41);
            return 1;
        }
        if (strncmp(buf, "ref: ", 5) != 0 || !wb_git_refname_ok(buf + 5))
            return 0;
        free(name);
        name = strdup(buf + 5);
    }
    return name == NULL ? rr_fail(err, ENOMEM, "git") : 0;
}

int wb_git_head(int git_fd, const char *headpath, char hex[41], struct rr_error *err)
{
    struct gitdirs d = {.upper = -1, .lower = git_fd, .fmt = WB_FORMAT_OVERLAY, .head = headpath};

    return resolve_head(&d, hex, err);
}

/* ---- the walk ---- */

static int walk(struct wb_gitobj *rd, const char *head, const char *base, struct wb_gitinfo *gi,
                struct rr_error *err)
{
    char hex[41];
    unsigned steps = 0;

    memcpy(hex, head, 41);
    for (;;) {
        git_commit *c = NULL;
        const char *s, *b;
        bool theirs;
        int r;
        if (strcmp(hex, base) == 0)
            return 0;
        if (steps++ == WB_COMMITS_WALK) {
            gi->commits_more = true;
            return 0;
        }
        if (wb_gitobj_checkout_has(rd, hex, &theirs, err) < 0)
            return -1;
        if (theirs) {
            gi->commits_off_base = true; /* the agent's HEAD left the checkout's */
            return 0;
        }
        if (!wb_gitobj_checkout_lacks(rd, hex)) {
            gi->commits_packed = true;
            snprintf(gi->packed_why, sizeof(gi->packed_why),
                     "the checkout has packs revrun did not open (%s), so a packed commit could "
                     "be the checkout's own", rd->lpacks->skipped);
            return 0;
        }
        if ((r = wb_gitobj_commit(rd, hex, &c, gi, err)) <= 0)
            return r;
        s = rd->g2->git_commit_summary(c);
        b = rd->g2->git_commit_body(c);
        r = wb_gitinfo_commit(gi, s ? s : "", s ? strlen(s) : 0, b, b ? strlen(b) : 0, err);
        if (r == 0 && rd->g2->git_commit_parentcount(c) > 0)
            rd->g2->git_oid_tostr(hex, sizeof(hex), rd->g2->git_commit_parent_id(c, 0));
        else
            gi->commits_off_base = r == 0; /* a root commit: not on the checkout's */
        r = r < 0 ? -1 : rd->g2->git_commit_parentcount(c) > 0 ? 1 : 0;
        rd->g2->git_commit_free(c);
        if (r <= 0)
            return r;
    }
}

/* The agent's commits from the merged head down to the checkout's: lg and
 * ug the git directories (the checkout's, the upper's copy of it). */
static int commits_in(int lg, int ug, const char *headpath, enum wb_format fmt,
                      struct wb_gitinfo *gi, struct rr_error *err)
{
    struct gitdirs checkout = {.upper = -1, .lower = lg, .fmt = fmt, .head = headpath};
    struct gitdirs merged = {.upper = ug, .lower = lg, .fmt = fmt, .head = headpath};
    struct wb_gitobj rd;
    char base[41], head[41];
    int r;

    if (lg < 0 || ug < 0)
        return 0;
    if ((r = resolve_head(&checkout, base, err)) <= 0 ||
        (r = resolve_head(&merged, head, err)) <= 0 || strcmp(base, head) == 0)
        return r < 0 ? -1 : 0;
    if (wb_gitobj_open(&rd, ug, lg, err) < 0) {
        wb_gitobj_close(&rd);
        return -1;
    }
    r = walk(&rd, head, base, gi, err);
    wb_gitobj_close(&rd);
    return r;
}

int wb_git_commits(int lower_fd, int upper_fd, enum wb_format fmt, struct wb_gitinfo *gi,
                   struct rr_error *err)
{
    _cleanup_close_ int lg = wb_openat_beneath(lower_fd, ".git", O_RDONLY | O_DIRECTORY, 0);
    _cleanup_close_ int ug = wb_openat_beneath(upper_fd, ".git", O_RDONLY | O_DIRECTORY, 0);

    return commits_in(lg, ug, "HEAD", fmt, gi, err);
}

/* The whiteouts the sandbox itself left in C's scratch upper, hiding the
 * main checkout's index and stash (common/gitwt.h): not the agent's
 * changes. A file the agent wrote there instead is no whiteout and counts. */
static void uncount_hidden(int ud, struct wb_gitinfo *gi)
{
    for (const char *const *h = rr_gitwt_hidden; *h != NULL; h++) {
        struct stat st;

        if (gi->scratch > 0 && fstatat(ud, *h, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0))
            gi->scratch--;
    }
}

int wb_git_worktree_log(int lower_fd, int git_upper_fd, struct wb_gitinfo *gi,
                        struct rr_error *err)
{
    struct rr_gitwt w;
    char why[512], head[NAME_MAX + 32];
    _cleanup_close_ int cd = -1, ud = -1;
    int k = rr_gitwt_open(lower_fd, &w, why, sizeof(why), err);

    if (k <= 0)
        return k; /* not followed: C was not shown either (the profile asks the same) */
    cd = openat(w.common_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(head, sizeof(head), "worktrees/%s/HEAD", w.name);
    rr_gitwt_close(&w);
    if (cd < 0)
        return rr_fail(err, errno, "the worktree's git directory");
    if ((ud = openat(git_upper_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return rr_fail(err, errno, "the worktree's git directory: its upper");
    if (wb_git_count(ud, WB_SCRATCH_CAP, &gi->scratch, &gi->scratch_more, err) < 0)
        return -1;
    uncount_hidden(ud, gi);
    /* C's view is always kernel overlayfs (the profile shows it only so) */
    return commits_in(cd, ud, head, WB_FORMAT_OVERLAY_USERXATTR, gi, err);
}
