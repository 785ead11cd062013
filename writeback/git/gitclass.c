#include "writeback/git/gitclass.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/git2.h"
#include "writeback/git/gitfile.h"
#include "writeback/git/gitindex.h"
#include "writeback/git/gitrules.h"
#include "writeback/git/gitclass_int.h"
#include "writeback/git/gitworktree.h"
#include "writeback/git/gitinfo.h"
#include "writeback/names/names.h"

static void exclude_over_cap(struct wb_git *g)
{
    snprintf(g->problem, sizeof(g->problem), ".git/info/exclude over %u bytes was not read",
             WB_GITIGNORE_MAX);
}

/* A set's exclude, parsed; one of too many rules is dropped as one too
 * large is. */
static int parse_exclude(struct wb_git *g, struct rules *rs, struct rr_error *err)
{
    if (rs->exclude == NULL)
        return 0;
    if (wb_rules_parse(rs->exclude, rs->exclude_len, WB_IGNORE_RULES_FILE, &rs->exclude_rules,
                       err) == 0) {
        rs->n_rules = wb_rules_count(rs->exclude_rules);
        return 0;
    }
    if (err->errnum != E2BIG)
        return rr_wrap(err, ".git/info/exclude");
    snprintf(g->problem, sizeof(g->problem), ".git/info/exclude of over %u rules was not read",
             WB_IGNORE_RULES_FILE);
    free(rs->exclude);
    rs->exclude = NULL;
    rs->exclude_len = 0;
    return 0;
}

static int parse_excludes(struct wb_git *g, struct rr_error *err)
{
    return parse_exclude(g, &g->merged, err) < 0 || parse_exclude(g, &g->lower, err) < 0 ? -1 : 0;
}

/* .git/info/exclude of the merged view and of the checkout, in memory. */
static int read_excludes(struct wb_git *g, struct rr_error *err)
{
    _cleanup_close_ int u = wb_openat_beneath(g->upper_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    _cleanup_close_ int l = wb_openat_beneath(g->lower_fd, ".git/info", O_RDONLY | O_DIRECTORY, 0);
    int r = wb_git_read_merged(u, l, g->fmt, "exclude", WB_GITIGNORE_MAX, &g->merged.exclude,
                               &g->merged.exclude_len, err);

    if (r >= 0 && l >= 0)
        r = wb_git_read(l, "exclude", WB_GITIGNORE_MAX, &g->lower.exclude, &g->lower.exclude_len,
                        err);
    if (r < 0 && err->errnum == E2BIG) {
        exclude_over_cap(g);
        return parse_excludes(g, err); /* the one that was read, if any */
    }
    if (r < 0)
        return rr_wrap(err, ".git/info/exclude");
    g->merged.bytes += g->merged.exclude_len;
    g->lower.bytes += g->lower.exclude_len;
    return parse_excludes(g, err);
}

/* A worktree's gitfile: its git directory when it is provably this
 * checkout's; else, as before, no index and no exclude, and why. */
static int open_worktree(struct wb_git *g, struct rr_error *err)
{
    struct wb_gitwt wt;
    char why[WB_GIT_PROBLEM_MAX - 160];
    int k = wb_gitwt_open(g->lower_fd, &wt, why, sizeof(why), err);

    if (k < 0)
        return rr_wrap(err, "the checkout's worktree git directory");
    if (k == 0) {
        g->indexes_read = g->lower_failed = true; /* in_lower then counts as tracked */
        snprintf(g->problem, sizeof(g->problem),
                 "the checkout's .git is a gitfile (a worktree's) whose git directory was not "
                 "read (%s): every changed checkout file counts, and only the checkout's "
                 ".gitignore files are rules",
                 why);
        return 0;
    }
    g->worktree = true;
    g->wt_index_fd = rr_steal_fd(&wt.index_fd);
    if (wt.exclude_over_cap)
        exclude_over_cap(g);
    if (wt.exclude != NULL) {
        /* The agent cannot reach the common directory: both sets share it. */
        g->lower.exclude = malloc(wt.exclude_len + 1);
        if (g->lower.exclude == NULL) {
            wb_gitwt_free(&wt);
            return rr_fail(err, ENOMEM, "git");
        }
        memcpy(g->lower.exclude, wt.exclude, wt.exclude_len + 1);
        g->lower.exclude_len = g->lower.bytes = g->merged.bytes = wt.exclude_len;
        g->merged.exclude_len = wt.exclude_len;
        g->merged.exclude = rr_steal_ptr(&wt.exclude);
    }
    wb_gitwt_free(&wt);
    return parse_excludes(g, err);
}

int wb_git_open(int lower_fd, int upper_fd, enum wb_format fmt, bool gitfile, struct wb_git **out,
                struct rr_error *err)
{
    struct wb_git *g = calloc(1, sizeof(*g));
    int r;

    if (g == NULL)
        return rr_fail(err, ENOMEM, "git");
    *g = (struct wb_git){.lower_fd = lower_fd,
                         .upper_fd = upper_fd,
                         .fmt = fmt,
                         .merged = {.shadow_fd = -1},
                         .lower = {.shadow_fd = -1},
                         .wt_index_fd = -1,
                         .budget = {.max = WB_IGNORE_BUDGET}};
    r = gitfile ? open_worktree(g, err) : read_excludes(g, err);
    if (r < 0) {
        wb_git_close(g);
        return -1;
    }
    *out = g;
    return 0;
}

static void rules_free(const struct wb_git2 *g2, struct rules *rs)
{
    if (g2 != NULL)
        g2->git_repository_free(rs->repo);
    if (rs->shadow_fd >= 0)
        close(rs->shadow_fd);
    if (rs->shadow_made)
        gc_remove_shadow(rs);
    for (size_t i = 0; i < rs->n_files; i++) {
        free(rs->files[i].dir);
        free(rs->files[i].text);
        wb_rules_free(rs->files[i].rules);
    }
    free(rs->files);
    free(rs->stack);
    wb_rules_free(rs->exclude_rules);
    free(rs->exclude);
}

void wb_git_close(struct wb_git *g)
{
    if (g == NULL)
        return;
    wb_gitindex_free(g->lower_idx);
    wb_gitindex_free(g->upper_idx);
    rules_free(g->g2, &g->merged);
    rules_free(g->g2, &g->lower);
    if (g->g2 != NULL)
        wb_git2_release(g->g2);
    if (g->wt_index_fd >= 0)
        close(g->wt_index_fd);
    free(g);
}

/* ---- the walk's directories ---- */

static int push(struct rules *rs, size_t file, struct rr_error *err)
{
    if (rs->depth == rs->cap_stack) {
        size_t ncap = rs->cap_stack ? rs->cap_stack * 2 : 64;
        size_t *nv = realloc(rs->stack, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(err, ENOMEM, "git");
        rs->stack = nv;
        rs->cap_stack = ncap;
    }
    rs->stack[rs->depth++] = file;
    return 0;
}

/* On failure nothing is kept: the caller still owns text. */
static int keep_file(struct rules *rs, const char *dir, size_t len, char *text, size_t tlen,
                     struct wb_rules *rules, struct rr_error *err)
{
    struct ignore_file f = {.dlen = len, .text = text, .len = tlen, .rules = rules};

    if (rs->n_files == rs->cap_files) {
        size_t ncap = rs->cap_files ? rs->cap_files * 2 : 16;
        struct ignore_file *nv = realloc(rs->files, ncap * sizeof(*nv));
        if (nv == NULL)
            return rr_fail(err, ENOMEM, "git");
        rs->files = nv;
        rs->cap_files = ncap;
    }
    if ((f.dir = strndup(dir, len)) == NULL)
        return rr_fail(err, ENOMEM, "git");
    if (push(rs, rs->n_files, err) < 0) {
        free(f.dir);
        return -1;
    }
    rs->files[rs->n_files++] = f;
    return 0;
}

/* An ignore file's rules into *out: 1, or 0 when past a cap on rules (it is
 * then not read, as one past the byte caps). */
static int parse_rules(struct wb_git *g, struct rules *rs, const char *text, size_t len,
                       struct wb_rules **out, struct rr_error *err)
{
    if (wb_rules_parse(text, len, WB_IGNORE_RULES_FILE, out, err) < 0) {
        if (err->errnum != E2BIG)
            return -1;
        snprintf(g->problem, sizeof(g->problem), "an ignore file of over %u rules was not read",
                 WB_IGNORE_RULES_FILE);
        return 0;
    }
    if (rs->n_rules + wb_rules_count(*out) > WB_IGNORE_RULES_TOTAL) {
        snprintf(g->problem, sizeof(g->problem),
                 "ignore files of over %u rules in all: the rest were not read",
                 WB_IGNORE_RULES_TOTAL);
        wb_rules_free(*out);
        *out = NULL;
        return 0;
    }
    return 1;
}

/* The directory dir[0..len) of one set: its ignore file, read by rd (the
 * merged view's answer, or the checkout's), joins the rules. */
static int enter(struct wb_git *g, struct rules *rs, const char *dir, size_t len, int ufd, int lfd,
                 bool merged, struct rr_error *err)
{
    struct wb_rules *rules;
    char *buf = NULL;
    size_t blen;
    int r;

    if (wb_path_has_dotgit(dir, len) || rs->n_files >= WB_GITIGNORE_FILES || (!merged && lfd < 0))
        return push(rs, SIZE_MAX, err); /* a nested .git is refused anyway; past the cap: fewer rules */
    r = merged ? wb_git_read_merged(ufd, lfd, g->fmt, ".gitignore", WB_GITIGNORE_MAX, &buf, &blen,
                                    err)
               : wb_git_read(lfd, ".gitignore", WB_GITIGNORE_MAX, &buf, &blen, err);
    if (r < 0) {
        if (err->errnum != E2BIG)
            return rr_wrap(err, "%.*s/.gitignore", (int)len, dir);
        snprintf(g->problem, sizeof(g->problem), "an ignore file over %u bytes was not read",
                 WB_GITIGNORE_MAX);
        return push(rs, SIZE_MAX, err);
    }
    if (r == 0 || blen == 0 || rs->bytes + blen > WB_GITIGNORE_TOTAL) {
        if (r == 1 && blen > 0)
            snprintf(g->problem, sizeof(g->problem),
                     "ignore files over %u bytes in all: the rest were not read",
                     WB_GITIGNORE_TOTAL);
        free(buf);
        return push(rs, SIZE_MAX, err);
    }
    if ((r = parse_rules(g, rs, buf, blen, &rules, err)) <= 0) {
        free(buf);
        return r < 0 ? rr_wrap(err, "%.*s/.gitignore", (int)len, dir) : push(rs, SIZE_MAX, err);
    }
    rs->bytes += blen;
    if (keep_file(rs, dir, len, buf, blen, rules, err) < 0) {
        wb_rules_free(rules);
        free(buf);
        return -1;
    }
    rs->n_rules += wb_rules_count(rules);
    return 0;
}

int wb_git_enter(struct wb_git *g, const char *dir, size_t len, int ufd, int lfd, int lower_lfd,
                 struct rr_error *err)
{
    if (enter(g, &g->merged, dir, len, ufd, lfd, true, err) < 0)
        return -1;
    if (enter(g, &g->lower, dir, len, -1, lower_lfd, false, err) < 0) {
        g->merged.depth--;
        return -1;
    }
    return 0;
}

void wb_git_leave(struct wb_git *g)
{
    if (g->merged.depth > 0)
        g->merged.depth--;
    if (g->lower.depth > 0)
        g->lower.depth--;
}

int wb_git_enter_lower(struct wb_git *g, const char *dir, size_t len, int lfd,
                       struct rr_error *err)
{
    return enter(g, &g->lower, dir, len, -1, lfd, false, err);
}

void wb_git_leave_lower(struct wb_git *g)
{
    if (g->lower.depth > 0)
        g->lower.depth--;
}

/* Could any rule on the way down to path ignore it? The walk's stack holds
 * exactly the directories above it. Each answer is charged to the budget;
 * past it the answer is meaningless (the caller checks). */
static bool may_be_ignored(struct wb_git *g, const struct rules *rs, const char *path, size_t len)
{
    if (rs->exclude_rules && wb_rules_may_match(rs->exclude_rules, path, len, &g->budget))
        return true;
    for (size_t i = 0; i < rs->depth; i++) {
        const struct ignore_file *f;
        size_t skip;
        if (rs->stack[i] == SIZE_MAX)
            continue;
        f = &rs->files[rs->stack[i]];
        skip = f->dlen ? f->dlen + 1 : 0;
        if (len > skip && wb_rules_may_match(f->rules, path + skip, len - skip, &g->budget))
            return true;
    }
    return false;
}

/* What libgit2 will do for path: every rule on the way, for each directory
 * above it and for it. */
static void charge_lib(struct wb_git *g, const struct rules *rs, const char *path, size_t len)
{
    uint64_t rules = rs->exclude_rules ? wb_rules_count(rs->exclude_rules) : 0, comps = 1;

    for (size_t i = 0; i < rs->depth; i++)
        if (rs->stack[i] != SIZE_MAX)
            rules += wb_rules_count(rs->files[rs->stack[i]].rules);
    for (size_t i = 0; i < len; i++)
        comps += path[i] == '/';
    g->budget.used += rules * comps * WB_GIT2_RULE_STEPS;
}

static bool in_index(const struct wb_gitindex *ix, const char *path, size_t len, bool dir)
{
    return dir ? wb_gitindex_has_below(ix, path, len) : wb_gitindex_has(ix, path, len);
}

static int ask(struct wb_git *g, struct rules *rs, const char *path, size_t len, bool dir,
               bool in_lower, bool *ignored, struct rr_error *err)
{
    _cleanup_free_ char *q = NULL;
    size_t qlen = len;
    int ign = 0;

    *ignored = false;
    if (wb_ignore_over(&g->budget))
        return 0; /* the scan refuses the set (wb_git_over_budget) */
    if (len == 0 || wb_path_has_dotgit(path, len) || !may_be_ignored(g, rs, path, len) ||
        wb_ignore_over(&g->budget))
        return 0;
    charge_lib(g, rs, path, len);
    if (wb_ignore_over(&g->budget))
        return 0;
    if (gc_need_lib(g, rs, err) < 0)
        return rr_wrap(err, "the checkout's ignore rules");
    if ((q = malloc(len + 2)) == NULL)
        return rr_fail(err, ENOMEM, "git");
    memcpy(q, path, len);
    if (dir)
        q[qlen++] = '/';
    q[qlen] = '\0';
    if (g->g2->git_ignore_path_is_ignored(&ign, rs->repo, q) < 0)
        return rr_fail(err, 0, "libgit2: ignore rules for %s: %s", q, wb_git2_error(g->g2));
    if (!ign)
        return 0;
    if (!g->indexes_read)
        gc_load_indexes(g);
    if (in_lower) {
        /* What the checkout has is the checkout's index's to call tracked:
         * the agent's own index (git add -f of an operator's ignored file,
         * or a garbage one) never makes an ignored checkout file count
         * (review3 R2). Unread, everything of the checkout counts. */
        *ignored = !g->lower_failed && !in_index(g->lower_idx, path, len, dir);
        return 0;
    }
    *ignored = !in_index(g->lower_idx, path, len, dir) && !in_index(g->upper_idx, path, len, dir);
    return 0;
}

int wb_git_ignored(struct wb_git *g, const char *path, size_t len, bool dir, bool in_lower,
                   bool *ignored, struct rr_error *err)
{
    return ask(g, &g->merged, path, len, dir, in_lower, ignored, err);
}

int wb_git_deleted_ignored(struct wb_git *g, const char *path, size_t len, bool dir,
                           bool *ignored, struct rr_error *err)
{
    return ask(g, &g->lower, path, len, dir, true, ignored, err);
}

const char *wb_git_problem(const struct wb_git *g)
{
    return g->problem;
}

bool wb_git_over_budget(const struct wb_git *g, uint64_t *used, uint64_t *max)
{
    *used = g->budget.used;
    *max = g->budget.max;
    return wb_ignore_over(&g->budget);
}
