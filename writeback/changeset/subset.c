#include "writeback/changeset/subset.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

bool wb_subset_match(const char *pattern, const char *path)
{
    int flags = FNM_LEADING_DIR | (strstr(pattern, "**") ? 0 : FNM_PATHNAME);

    return fnmatch(pattern, path, flags) == 0;
}

static bool any_match(const char *const *pats, const char *path, bool *used)
{
    bool hit = false;

    for (size_t i = 0; pats && pats[i]; i++)
        if (wb_subset_match(pats[i], path))
            hit = used[i] = true;
    return hit;
}

static size_t count(const char *const *pats)
{
    size_t n = 0;

    while (pats && pats[n])
        n++;
    return n;
}

int wb_subset_select(const struct wb_changeset *cs, const struct wb_subset_spec *spec, bool *keep,
                     struct rr_error *err)
{
    size_t no = count(spec->only), ne = count(spec->exclude);
    _cleanup_free_ bool *used = calloc(no + ne + 1, sizeof(bool));

    if (used == NULL)
        return rr_fail(err, ENOMEM, "subset");
    for (size_t i = 0; i < cs->n; i++) {
        const char *p = cs->v[i].path;
        bool in = no == 0 || any_match(spec->only, p, used);
        keep[i] = !any_match(spec->exclude, p, used + no) && in;
    }
    for (size_t i = 0; i < no + ne; i++)
        if (!used[i])
            return rr_fail(err, ENOENT, "%s %s: no change of the set matches it",
                           i < no ? "--only" : "--exclude",
                           i < no ? spec->only[i] : spec->exclude[i - no]);
    return 0;
}

static bool makes_dir(const struct wb_change *c)
{
    return c->new.type == WB_T_DIR && c->base.type != WB_T_DIR;
}

static bool removes_dir(const struct wb_change *c)
{
    return c->base.type == WB_T_DIR && c->new.type != WB_T_DIR;
}

/* A kept change under a directory the set makes that is left out. */
static int need_parents(const struct wb_changeset *cs, const bool *keep, size_t i,
                        struct wb_notes *why, struct rr_error *err)
{
    const struct wb_change *c = &cs->v[i];

    for (size_t len = c->path_len; len > 0; len--) {
        long j;
        if (c->path[len - 1] != '/')
            continue;
        j = wb_changeset_find(cs, c->path, len - 1);
        if (j >= 0 && !keep[j] && makes_dir(&cs->v[j]))
            return wb_note_add(why, c->path, c->path_len, "subset-directory", err,
                               "it lies in the directory %.*s that the set makes (%s), which is "
                               "left out: include that too",
                               (int)(len - 1), c->path, wb_kind_name(cs->v[j].kind));
    }
    return 0;
}

/* A kept removal of a directory while a change under it is left out. */
static int need_children(const struct wb_changeset *cs, const bool *keep, size_t i,
                         struct wb_notes *why, struct rr_error *err)
{
    const struct wb_change *c = &cs->v[i];

    for (size_t j = i + 1; j < cs->n; j++) {
        const struct wb_change *d = &cs->v[j];
        if (d->path_len <= c->path_len || d->path[c->path_len] != '/' ||
            memcmp(d->path, c->path, c->path_len) != 0)
            break; /* sorted: what is under c follows it */
        if (!keep[j])
            return wb_note_add(why, c->path, c->path_len, "subset-removal", err,
                               "the set removes this directory (%s), but %s under it is left "
                               "out: include that too, or leave this out",
                               wb_kind_name(c->kind), d->path);
    }
    return 0;
}

/* ---- renames: a deleted file and an added one with the same content ---- */

struct side {
    const unsigned char *sha;
    size_t i;
    bool added;
};

static int cmp_side(const void *x, const void *y)
{
    const struct side *a = x, *b = y;
    int r = memcmp(a->sha, b->sha, WB_SHA256_LEN);

    return r != 0 ? r : a->i < b->i ? -1 : a->i > b->i;
}

/* The deletes and adds of a file with content (an empty file is no
 * evidence of a rename), sorted by content. */
static struct side *rename_sides(const struct wb_changeset *cs, size_t *n)
{
    struct side *v = calloc(cs->n + 1, sizeof(*v));

    *n = 0;
    for (size_t i = 0; v && i < cs->n; i++) {
        const struct wb_change *c = &cs->v[i];
        if (c->kind == WB_DELETE && c->base.type == WB_T_FILE && c->base.size > 0)
            v[(*n)++] = (struct side){c->base.sha256, i, false};
        else if (c->kind == WB_ADD && c->new.type == WB_T_FILE && c->new.size > 0)
            v[(*n)++] = (struct side){c->new.sha256, i, true};
    }
    if (v)
        qsort(v, *n, sizeof(*v), cmp_side);
    return v;
}

/* One group of the same content [a, b): when it holds a delete and an add
 * and the selection splits it, each kept one is refused, naming one left
 * out of the other side. */
static int split_group(const struct wb_changeset *cs, const bool *keep, const struct side *g,
                       size_t n, struct wb_notes *why, struct rr_error *err)
{
    for (size_t k = 0; k < n; k++) {
        const struct wb_change *c = &cs->v[g[k].i];
        if (!keep[g[k].i])
            continue;
        for (size_t m = 0; m < n; m++)
            if (g[m].added != g[k].added && !keep[g[m].i])
                return wb_note_add(why, c->path, c->path_len, "subset-rename", err,
                                   "it and %s hold the same content (one half of a rename): "
                                   "include both or neither",
                                   cs->v[g[m].i].path);
    }
    return 0;
}

static int need_rename_halves(const struct wb_changeset *cs, const bool *keep, struct wb_notes *why,
                              struct rr_error *err)
{
    size_t n, a = 0;
    _cleanup_free_ struct side *v = rename_sides(cs, &n);

    if (v == NULL)
        return rr_fail(err, ENOMEM, "subset");
    while (a < n) {
        size_t b = a + 1;
        while (b < n && memcmp(v[a].sha, v[b].sha, WB_SHA256_LEN) == 0)
            b++;
        if (b - a > 1 && split_group(cs, keep, v + a, b - a, why, err) < 0)
            return -1;
        a = b;
    }
    return 0;
}

int wb_subset_check(const struct wb_changeset *cs, const bool *keep, struct wb_notes *why,
                    struct rr_error *err)
{
    for (size_t i = 0; i < cs->n; i++) {
        if (!keep[i])
            continue;
        if (need_parents(cs, keep, i, why, err) < 0 ||
            (removes_dir(&cs->v[i]) && need_children(cs, keep, i, why, err) < 0))
            return -1;
    }
    if (need_rename_halves(cs, keep, why, err) < 0)
        return -1;
    wb_notes_sort(why);
    return 0;
}

int wb_subset_take(const struct wb_changeset *cs, const bool *keep, struct wb_changeset *out,
                   struct rr_error *err)
{
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < cs->n; i++) {
        const struct wb_change *c = &cs->v[i];
        if (keep[i] && wb_changeset_add(out, c->path, c->path_len, &c->base, &c->new, err) < 0)
            return -1;
    }
    wb_changeset_sort(out);
    return wb_origin_copy(&out->origin, &cs->origin, err);
}
