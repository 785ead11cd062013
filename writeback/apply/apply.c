#include "writeback/apply/apply.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/apply/apply_int.h"
#include "writeback/apply/apply_same.h"
#include "writeback/base/fsutil.h"

static int conflict(struct applier *a, const struct wb_change *c, const char *why)
{
    return wb_note_add(&a->res->conflicts, c->path, c->path_len, "conflict", a->err, "%s", why);
}

/* The closest change above c, or -1. */
static long nearest_ancestor(const struct wb_changeset *cs, const struct wb_change *c)
{
    for (size_t end = c->path_len; end > 0;) {
        const char *slash = memrchr(c->path, '/', end);
        long j;
        if (slash == NULL)
            return -1;
        end = (size_t)(slash - c->path);
        if ((j = wb_changeset_find(cs, c->path, end)) >= 0)
            return j;
    }
    return -1;
}

/* c must fit the closest change above it: a directory the set creates holds
 * only new paths, one it removes only removed paths. Returns 1 when c lies
 * in a directory the set creates (TARGET has nothing there to compare), 0
 * when TARGET is to be compared, 2 after a conflict, -1 on error. */
static int ancestry(struct applier *a, const struct wb_change *c)
{
    long j = nearest_ancestor(a->cs, c);
    const struct wb_change *p;

    if (j < 0)
        return 0;
    p = &a->cs->v[j];
    if (p->new.type == WB_T_DIR && p->base.type != WB_T_DIR && c->base.type == WB_T_NONE &&
        c->new.type != WB_T_NONE)
        return 1;
    if (p->base.type == WB_T_DIR && p->new.type != WB_T_DIR && c->new.type == WB_T_NONE &&
        c->base.type != WB_T_NONE)
        return 0;
    return conflict(a, c, "the manifest's directories do not hold its paths") < 0 ? -1 : 2;
}

static int same_link(struct applier *a, const struct wb_change *c, int pfd, const char *name,
                     const struct stat *st)
{
    _cleanup_free_ char *t = NULL;
    size_t len;

    if (!S_ISLNK(st->st_mode))
        return 0;
    if (wb_readlink(pfd, name, 4096, &t, &len, a->err) < 0)
        return rr_wrap(a->err, "TARGET %s", c->path);
    return len == c->base.size && memcmp(t, c->base.target, len) == 0;
}

/* Does TARGET's directory hold only what the set removes from it? */
static int dir_covered(struct applier *a, const struct wb_change *c, int pfd, const char *name)
{
    _cleanup_close_ int fd = wb_openat_beneath(pfd, name, O_RDONLY | O_DIRECTORY, 0);
    _cleanup_free_ char *p = malloc(c->path_len + 2 + 256);
    char **names = NULL;
    size_t n = 0;
    int ok = 1;

    if (fd < 0 || p == NULL)
        return rr_fail(a->err, fd < 0 ? errno : ENOMEM, "TARGET %s", c->path);
    if (wb_read_names(fd, a->cs->n, &names, &n, a->err) < 0)
        return a->err->errnum == E2BIG ? 0 : rr_wrap(a->err, "TARGET %s", c->path);
    memcpy(p, c->path, c->path_len);
    p[c->path_len] = '/';
    for (size_t i = 0; i < n && ok; i++) {
        size_t nl = strlen(names[i]);
        long j;
        memcpy(p + c->path_len + 1, names[i], nl); /* a name is at most 255 bytes */
        j = wb_changeset_find(a->cs, p, c->path_len + 1 + nl);
        ok = j >= 0 && a->cs->v[j].new.type == WB_T_NONE;
    }
    wb_free_names(names, n);
    return ok;
}

static int compare_base(struct applier *a, size_t i, int pfd, const char *name)
{
    const struct wb_change *c = &a->cs->v[i];
    struct stat st;
    int same;

    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        if (errno != ENOENT)
            return rr_fail(a->err, errno, "TARGET %s", c->path);
        return c->base.type == WB_T_NONE ? 0 : conflict(a, c, "missing in TARGET");
    }
    a->found[i] = (struct found){st.st_ino, st.st_dev, st.st_mode, st.st_uid, st.st_gid};
    switch (c->base.type) {
    case WB_T_NONE:
        return conflict(a, c, "already exists in TARGET");
    case WB_T_FILE:
        if ((same = ap_same_file(pfd, name, &st, &c->base, a->err)) < 0)
            return rr_wrap(a->err, "TARGET %s", c->path);
        if (same == AP_MOVED)
            return conflict(a, c, "TARGET's file changed while it was compared");
        if (same == AP_SAME && ((st.st_mode & S_IXUSR) != 0) != c->base.exec)
            return conflict(a, c, "its executable bit in TARGET is not the base's");
        return same == AP_SAME ? 0 : conflict(a, c, "TARGET's content is not the base");
    case WB_T_SYMLINK:
        if ((same = same_link(a, c, pfd, name, &st)) < 0)
            return -1;
        return same ? 0 : conflict(a, c, "TARGET's symlink is not the base");
    default:
        if (!S_ISDIR(st.st_mode))
            return conflict(a, c, "not a directory in TARGET");
        if (c->new.type == WB_T_DIR)
            return 0;
        if ((same = dir_covered(a, c, pfd, name)) < 0)
            return -1;
        return same ? 0
                    : conflict(a, c,
                               "TARGET's directory holds paths the change set "
                               "does not remove");
    }
}

/* A new path's owner: its directory's (a directory the set creates has its
 * own directory's, found before it: the set is sorted parents first). */
static int parent_owner(struct applier *a, size_t i, int pfd)
{
    struct stat st;
    long j;

    if (pfd < 0) {
        if ((j = nearest_ancestor(a->cs, &a->cs->v[i])) >= 0)
            a->found[i].uid = a->found[j].uid, a->found[i].gid = a->found[j].gid;
        return 0;
    }
    if (fstat(pfd, &st) < 0)
        return rr_fail(a->err, errno, "TARGET %s", a->cs->v[i].path);
    a->found[i].uid = st.st_uid;
    a->found[i].gid = st.st_gid;
    return 0;
}

static int verify_one(struct applier *a, size_t i)
{
    const struct wb_change *c = &a->cs->v[i];
    const char *name;
    _cleanup_close_ int pfd = -1;
    int r = ancestry(a, c);

    if (r == 1)
        return parent_owner(a, i, -1);
    if (r != 0)
        return r < 0 ? -1 : 0;
    if ((pfd = wb_open_parent(a->tfd, c->path, c->path_len, &name)) >= 0)
        return parent_owner(a, i, pfd) < 0 ? -1 : compare_base(a, i, pfd, name);
    if (errno == ELOOP)
        return conflict(a, c, "a symlink in TARGET is on its path");
    if (errno == EXDEV)
        return conflict(a, c, "a mount point in TARGET is on its path");
    if (errno == ENOENT || errno == ENOTDIR)
        return conflict(a, c, "its directory is missing in TARGET");
    return rr_fail(a->err, errno, "TARGET %s", c->path);
}

int ap_verify(struct applier *a)
{
    for (size_t i = 0; i < a->cs->n; i++)
        if (verify_one(a, i) < 0)
            return -1;
    return 0;
}

static void finish(struct applier *a, int r)
{
    struct rr_error ignored;

    if (a->res->restore_failed)
        return; /* the stage and the journal hold what is needed to finish */
    /* Rolled back: the journal says so before the stage goes, or a crash in
     * between would leave steps whose evidence went with the stage. */
    if (r != 0 && a->target->journal >= 0 && wb_journal_settle(a->target->journal, &ignored) < 0)
        return; /* the next recovery finds nothing to undo and removes it */
    ap_remove_stage(a);
    /* An applied set whose stage could not go keeps its journal (with the
     * COMMITTED record): sweep removes the stage later. */
    if (a->target->journal >= 0 && (r != 0 || a->res->stage[0] == '\0'))
        wb_journal_clear(a->target->journal, &ignored);
}

int wb_apply(const struct wb_changeset *cs, const struct wb_source *src,
             const struct wb_target *target, struct wb_apply_result *res, struct rr_error *err)
{
    struct applier a = {
        .cs = cs, .src = src, .res = res, .tfd = target->fd, .stage_fd = -1, .target = target,
        .err = err, .keep_owner = geteuid() == 0};
    int r = -1, done;

    *res = (struct wb_apply_result){0};
    a.found = calloc(cs->n + 1, sizeof(*a.found));
    a.steps = calloc(2 * cs->n + 1, sizeof(*a.steps));
    if (a.found == NULL || a.steps == NULL)
        rr_fail(err, ENOMEM, "apply");
    else if (ap_verify(&a) == 0)
        r = res->conflicts.n > 0 ? 1 : 0;
    if (r == 1 && (done = ap_already_applied(&a)) != 0) {
        r = done < 0 ? -1 : 0;
        res->already_applied = done > 0;
        if (done > 0)
            wb_notes_free(&res->conflicts);
    }
    if (r == 0 && !res->already_applied && cs->n > 0 && (r = ap_stage(&a)) == 0 &&
        (r = ap_commit(&a)) < 0 &&
        !ap_rollback(&a))
        res->restore_failed = true;
    finish(&a, r);
    if (a.stage_fd >= 0)
        close(a.stage_fd);
    free(a.found);
    free(a.steps);
    return r;
}

void wb_apply_result_free(struct wb_apply_result *res)
{
    wb_notes_free(&res->conflicts);
}
