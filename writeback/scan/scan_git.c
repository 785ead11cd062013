/* The checkout's git rules during the walk: what its ignore rules leave out
 * (counted, never part of the set), a new directory git would not call
 * changed, the scratch .git, and what the agent did there, read after the
 * walk. Shared by the walk (scan.c). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "writeback/git/gitclass.h"
#include "writeback/git/gitfile.h"
#include "writeback/git/gitlog.h"
#include "writeback/scan/scan_int.h"

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

static bool git_rules(const struct scanner *sc)
{
    return sc->git != NULL && !sc->pol->include_ignored;
}

/* Past the ignore rules' budget no answer is trusted: the set is refused
 * (once) and the walk stops, so the cost stays bounded. */
static int git_budget(struct scanner *sc)
{
    uint64_t used, max;

    if (!wb_git_over_budget(sc->git, &used, &max) || sc->out->stopped)
        return 0;
    sc->out->stopped = true;
    return sc_refuse(sc, 0, "ignore-cost",
                     "the agent's ignore rules are too costly to evaluate: %" PRIu64
                     " checks, past the budget of %" PRIu64,
                     used, max);
}

/* Is sc->path[0..len) left out? Then it is counted (and its directory knows
 * something below was), and only indexed for the merged lookups. */
int sc_git_ignored(struct scanner *sc, struct uframe *f, size_t len, bool in_lower,
                   bool *ignored)
{
    *ignored = false;
    if (!git_rules(sc))
        return 0;
    if (wb_git_ignored(sc->git, sc->path, len, false, in_lower, ignored, sc->err) < 0 ||
        git_budget(sc) < 0)
        return -1;
    if (!*ignored)
        return 0;
    f->ignored_below = true;
    return wb_gitinfo_ignore(&sc->out->cs.git, sc->path, len, false, 1, sc->err);
}

/* A new directory the rules ignore as a whole, with nothing below it
 * tracked: not walked (a node_modules tree may hold more entries than the
 * walk allows), its files only counted. Indexed as opaque, so the merged
 * lookups see nothing below it, as the target will. */
int sc_git_ignored_dir(struct scanner *sc, struct uframe *f, int fd, size_t len, bool *ignored)
{
    uint64_t n;
    bool more;

    *ignored = false;
    if (!git_rules(sc))
        return 0;
    if (wb_git_ignored(sc->git, sc->path, len, true, false, ignored, sc->err) < 0 ||
        git_budget(sc) < 0)
        return -1;
    if (!*ignored)
        return 0;
    if (wb_git_count(fd, WB_SCRATCH_CAP, &n, &more, sc->err) < 0)
        return rr_wrap(sc->err, "%s", sc->path);
    f->ignored_below = true;
    if (wb_gitinfo_ignore(&sc->out->cs.git, sc->path, len, true, n, sc->err) < 0)
        return -1;
    return sc_index(sc, len, WB_U_DIR, true, NULL);
}

int sc_git_deleted_ignored(struct scanner *sc, int lfd, const char *name, size_t len,
                           bool *ignored)
{
    _cleanup_close_ int fd = -1;
    struct stat st;
    uint64_t n = 1;
    bool dir, more;

    *ignored = false;
    if (!git_rules(sc) || lfd < 0 || fstatat(lfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0; /* gone from the checkout too: the deletion is judged as before */
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISDIR(st.st_mode))
        return 0; /* a special file is refused, ignored or not */
    dir = S_ISDIR(st.st_mode);
    if (wb_git_deleted_ignored(sc->git, sc->path, len, dir, ignored, sc->err) < 0 ||
        git_budget(sc) < 0)
        return -1;
    if (!*ignored)
        return 0;
    if (dir && ((fd = sc_open_dir(lfd, name)) < 0 ||
                wb_git_count(fd, WB_SCRATCH_CAP, &n, &more, sc->err) < 0))
        return fd < 0 ? rr_fail(sc->err, errno, "lower %s", sc->path)
                      : rr_wrap(sc->err, "%s", sc->path);
    return wb_gitinfo_ignore(&sc->out->cs.git, sc->path, len, dir, n, sc->err);
}

int sc_git_drop(struct scanner *sc, size_t idx)
{
    if (sc->n_drops == sc->cap_drops) {
        size_t ncap = sc->cap_drops ? sc->cap_drops * 2 : 64;
        size_t *nv = realloc(sc->drops, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(sc->err, ENOMEM, "change set");
        sc->drops = nv;
        sc->cap_drops = ncap;
    }
    sc->drops[sc->n_drops++] = idx;
    return 0;
}

/* Leaving a new directory: git has no directories, so one that holds no
 * change but ignored ones (build/ with only x.o) is no change either. */
int sc_git_leave(struct scanner *sc, struct walk *w)
{
    struct uframe *f = &w->stack[w->depth - 1];
    size_t below = sc->out->cs.n - f->cs_mark - (sc->n_drops - f->drops_mark);
    int r = 0;

    if (f->dir_change != SIZE_MAX && below == 0 && f->ignored_below)
        r = sc_git_drop(sc, f->dir_change);
    if (f->ignored_below && w->depth > 1)
        w->stack[w->depth - 2].ignored_below = true;
    if (sc->git != NULL)
        wb_git_leave(sc->git);
    return r;
}

/* The changes the rules left out go; the order is restored by the sort. */
void sc_git_compact(struct scanner *sc)
{
    struct wb_changeset *cs = &sc->out->cs;
    size_t out = 0, d = 0;

    if (sc->n_drops == 0)
        return;
    qsort(sc->drops, sc->n_drops, sizeof(size_t), cmp_size);
    for (size_t i = 0; i < cs->n; i++) {
        if (d < sc->n_drops && sc->drops[d] == i) {
            d++;
            wb_obj_free(&cs->v[i].base);
            wb_obj_free(&cs->v[i].new);
            free(cs->v[i].path);
            continue;
        }
        cs->v[out++] = cs->v[i];
    }
    cs->n = out;
}

/* The scratch .git of a checkout that is a repository: the agent's to use,
 * never applied, so not walked as part of the change; counted afterwards. */
bool sc_git_scratch_dir(const struct scanner *sc, const struct uframe *f, const char *name,
                        const struct stat *st)
{
    /* A gitfile checkout has no git directory of its own: a .git directory
     * over its gitfile is a replaced .git, walked and refused. */
    return sc->git != NULL && !sc->gitfile && f->plen == 0 && strcmp(name, ".git") == 0 &&
           S_ISDIR(st->st_mode);
}

/* A checkout that is a git repository gets git's idea of the change. */
int sc_git_open(struct scanner *sc)
{
    struct wb_gitinfo *gi = &sc->out->cs.git;

    if (!wb_git_is_repo(sc->out->lower_fd) && !(sc->gitfile = wb_git_is_gitfile(sc->out->lower_fd)))
        return 0;
    gi->repo = true;
    gi->include_ignored = sc->pol->include_ignored;
    if (wb_git_open(sc->out->lower_fd, sc->out->upper_fd, sc->in->format, sc->gitfile, &sc->git,
                    sc->err) < 0)
        return rr_wrap(sc->err, "the checkout's git rules");
    return 0;
}

/* What the agent did in .git: counted, and its commits kept; the set's
 * origin (scan_origin.c). */
int sc_git_after(struct scanner *sc)
{
    struct wb_gitinfo *gi = &sc->out->cs.git;

    snprintf(gi->problem, sizeof(gi->problem), "%s", wb_git_problem(sc->git));
    if (sc->gitfile && sc->in->has_git_upper &&
        wb_git_worktree_log(sc->out->lower_fd, sc->in->git_upper_fd, gi, sc->err) < 0)
        return rr_wrap(sc->err, "the agent's writes to the worktree's git directory");
    if (!sc->gitfile && /* else no .git directory of the agent's in the upper */
        (wb_git_scratch(sc->out->upper_fd, gi, sc->err) < 0 ||
         wb_git_commits(sc->out->lower_fd, sc->out->upper_fd, sc->in->format, gi, sc->err) < 0))
        return rr_wrap(sc->err, "the agent's .git");
    return sc_origin(sc);
}
