/* Two names of one merged directory that are distinct on Linux but the same
 * file on macOS (APFS/HFS+: case-insensitive, normalisation-insensitive) or
 * Windows (NTFS: case-insensitive): on such a checkout one clobbers the
 * other, which is how CVE-2021-21300 turned a clone into code execution.
 * Only directories that gain a name are listed, and only the pairs where at
 * least one name is new are refused: the checkout's own pairs are not the
 * agent's doing. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/scan/merged.h"
#include "writeback/names/names.h"
#include "writeback/rules/rules.h"

struct keyed {
    char *name;
    char *key;
    size_t klen;
};

struct listing {
    struct keyed *v;
    size_t n, cap;
};

static void listing_free(struct listing *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].name);
        free(l->v[i].key);
    }
    free(l->v);
}

static int listing_add(struct listing *l, const char *name, size_t len)
{
    struct keyed k = {.name = strndup(name, len)};

    if (l->n == l->cap) {
        size_t ncap = l->cap ? l->cap * 2 : 64;
        struct keyed *nv = realloc(l->v, ncap * sizeof(*nv));
        if (nv == NULL) {
            free(k.name);
            return -1;
        }
        l->v = nv;
        l->cap = ncap;
    }
    if (k.name == NULL)
        return -1;
    k.key = wb_fold_key(name, len, &k.klen);
    if (k.key == NULL) { /* not UTF-8: compared as it is */
        k.key = strndup(name, len);
        k.klen = len;
    }
    if (k.key == NULL) {
        free(k.name);
        return -1;
    }
    l->v[l->n++] = k;
    return 0;
}

/* Index of the first upper entry below dir[0..len) (all of them for the top). */
static size_t first_below(const struct wb_scan *s, const char *dir, size_t len)
{
    size_t lo = 0, hi = s->n_idx;

    if (len == 0)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wb_path_cmp(s->idx[mid].path, s->idx[mid].len, dir, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The upper's direct children of dir, whiteouts left out. */
static int add_upper(const struct wb_scan *s, const char *dir, size_t len, struct listing *l)
{
    for (size_t i = first_below(s, dir, len); i < s->n_idx; i++) {
        const struct wb_upper_entry *e = &s->idx[i];
        size_t skip = len ? len + 1 : 0;
        if (len && (e->len <= len || memcmp(e->path, dir, len) != 0 || e->path[len] != '/'))
            break;
        if (memchr(e->path + skip, '/', e->len - skip) != NULL || e->kind == WB_U_WHITEOUT)
            continue;
        if (listing_add(l, e->path + skip, e->len - skip) < 0)
            return -1;
    }
    return 0;
}

/* The checkout's names of dir the upper does not shadow. */
static int add_lower(const struct wb_scan *s, const char *dir, size_t len, struct listing *l,
                     struct rr_error *err)
{
    _cleanup_close_ int fd = wb_lower_dir(s, dir, len, O_RDONLY);
    _cleanup_free_ char *path = malloc(len + 258);
    char **names = NULL;
    size_t n = 0;
    int r = 0;

    if (fd < 0 || wb_merged_hides_lower(s, dir, len))
        return 0;
    if (path == NULL ||
        wb_read_names(fd, (size_t)s->pol->max_files * WB_WALK_FACTOR, &names, &n, err) < 0)
        return path == NULL ? rr_fail(err, ENOMEM, "collisions") : -1;
    memcpy(path, dir, len);
    for (size_t i = 0; i < n && r == 0; i++) {
        size_t nl = strlen(names[i]), pl = len ? len + 1 + nl : nl;
        if (nl > 256)
            continue;
        if (len)
            path[len] = '/';
        memcpy(path + (len ? len + 1 : 0), names[i], nl);
        if (wb_scan_find(s, path, pl) == NULL && listing_add(l, names[i], nl) < 0)
            r = rr_fail(err, ENOMEM, "collisions");
    }
    wb_free_names(names, n);
    return r;
}

static int cmp_keyed(const void *x, const void *y)
{
    const struct keyed *a = x, *b = y;
    int c = memcmp(a->key, b->key, a->klen < b->klen ? a->klen : b->klen);
    return c ? c : (a->klen > b->klen) - (a->klen < b->klen);
}

/* Is dir/name a name the change set adds? */
static bool is_new(const struct wb_scan *s, const char *dir, size_t len, const char *name,
                   char *buf)
{
    size_t nl = strlen(name), pl = len ? len + 1 + nl : nl;
    long i;

    memcpy(buf, dir, len);
    if (len)
        buf[len] = '/';
    memcpy(buf + (len ? len + 1 : 0), name, nl);
    buf[pl] = '\0';
    i = wb_changeset_find(&s->cs, buf, pl);
    return i >= 0 && s->cs.v[i].base.type == WB_T_NONE;
}

static int check_dir(struct wb_scan *s, const char *dir, size_t len, struct rr_error *err)
{
    struct listing l = {0};
    _cleanup_free_ char *buf = malloc(len + 2 + 1024);
    int r = 0;

    if (buf == NULL || add_upper(s, dir, len, &l) < 0) {
        listing_free(&l);
        return rr_fail(err, ENOMEM, "collisions");
    }
    if (add_lower(s, dir, len, &l, err) < 0) {
        listing_free(&l);
        return -1;
    }
    if (l.n > 1)
        qsort(l.v, l.n, sizeof(l.v[0]), cmp_keyed);
    for (size_t i = 1; i < l.n && r == 0; i++) {
        const struct keyed *a = &l.v[i - 1], *b = &l.v[i], *nw;
        if (cmp_keyed(a, b) != 0)
            continue;
        if (is_new(s, dir, len, b->name, buf))
            nw = b;
        else if (is_new(s, dir, len, a->name, buf))
            nw = a;
        else
            continue; /* both were in the checkout already */
        r = wb_note_add(&s->cs.refused, buf, strlen(buf), "collision", err,
                        "collides with \"%s\" under case folding or Unicode normalization",
                        nw == b ? a->name : b->name);
    }
    listing_free(&l);
    return r;
}

static int cmp_dir(const void *x, const void *y)
{
    const struct wb_change *const *a = x, *const *b = y;
    const char *sa = memrchr((*a)->path, '/', (*a)->path_len);
    const char *sb = memrchr((*b)->path, '/', (*b)->path_len);
    size_t la = sa ? (size_t)(sa - (*a)->path) : 0, lb = sb ? (size_t)(sb - (*b)->path) : 0;
    return wb_path_cmp((*a)->path, la, (*b)->path, lb);
}

int wb_rules_collisions(struct wb_scan *s, struct rr_error *err)
{
    _cleanup_free_ const struct wb_change **adds = calloc(s->cs.n + 1, sizeof(*adds));
    size_t n = 0;

    if (adds == NULL)
        return rr_fail(err, ENOMEM, "collisions");
    for (size_t i = 0; i < s->cs.n; i++)
        if (s->cs.v[i].base.type == WB_T_NONE && s->cs.v[i].new.type != WB_T_NONE)
            adds[n++] = &s->cs.v[i];
    if (n > 1)
        qsort(adds, n, sizeof(*adds), cmp_dir);
    for (size_t i = 0; i < n; i++) {
        const char *sl = memrchr(adds[i]->path, '/', adds[i]->path_len);
        size_t dl = sl ? (size_t)(sl - adds[i]->path) : 0;
        if (i > 0 && cmp_dir(&adds[i - 1], &adds[i]) == 0)
            continue;
        if (check_dir(s, adds[i]->path, dl, err) < 0)
            return -1;
    }
    return 0;
}
