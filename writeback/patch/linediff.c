#include "writeback/patch/linediff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writeback/patch/siphash.h"

static int refill(struct wb_ld_reader *r, struct rr_error *err)
{
    uint64_t at = r->buf_off + r->len, left = r->size - at;
    size_t want = left < sizeof(r->buf) ? (size_t)left : sizeof(r->buf);
    ssize_t n;

    do
        n = pread(r->fd, r->buf, want, (off_t)at);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return rr_fail(err, errno, "reading for the patch");
    if (n == 0)
        return rr_fail(err, ESTALE, "the file shrank since it was vetted");
    r->buf_off = at;
    r->len = (size_t)n;
    r->pos = 0;
    return 0;
}

int wb_ld_next_line(struct wb_ld_reader *r, uint64_t *off, uint64_t *len, uint64_t *hash,
                    bool *got, struct rr_error *err)
{
    struct wb_siphash h;
    uint64_t start = r->buf_off + r->pos;

    *got = start < r->size;
    if (!*got)
        return 0;
    wb_siphash_init(&h, r->key);
    for (;;) {
        if (r->pos == r->len && refill(r, err) < 0)
            return -1;
        const char *p = r->buf + r->pos, *nl = memchr(p, '\n', r->len - r->pos);
        size_t n = nl ? (size_t)(nl - p) + 1 : r->len - r->pos;
        wb_siphash_update(&h, p, n);
        r->pos += n;
        if (nl != NULL || r->buf_off + r->pos >= r->size)
            break;
    }
    *off = start;
    *len = r->buf_off + r->pos - start;
    *hash = wb_siphash_final(&h);
    return 0;
}

static int side_init(struct wb_ld_side *s, int fd, uint64_t size, const uint64_t *key,
                     struct rr_error *err)
{
    s->r.fd = fd;
    s->r.size = fd < 0 ? 0 : size;
    s->r.key = key;
    s->w = calloc(WB_LD_WINDOW, sizeof(*s->w));
    s->off = calloc(WB_LD_WINDOW, sizeof(*s->off));
    if (s->w == NULL || s->off == NULL)
        return rr_fail(err, ENOMEM, "patch");
    return 0;
}

int wb_ldiff_init(struct wb_ldiff *d, int fda, uint64_t sizea, int fdb, uint64_t sizeb,
                  const uint64_t key[2], struct rr_error *err)
{
    memset(d, 0, sizeof(*d));
    d->key[0] = key[0];
    d->key[1] = key[1];
    if (side_init(&d->a, fda, sizea, d->key, err) < 0 ||
        side_init(&d->b, fdb, sizeb, d->key, err) < 0) {
        wb_ldiff_free(d);
        return -1;
    }
    return 0;
}

void wb_ldiff_free(struct wb_ldiff *d)
{
    free(d->a.w);
    free(d->a.off);
    free(d->b.w);
    free(d->b.off);
    free(d->script);
    d->a.w = d->b.w = NULL;
    d->a.off = d->b.off = NULL;
    d->script = NULL;
}

/* Drop the lines the last window used, read up to a full window; *all when
 * the window now holds the rest of the file. */
static int slide(struct wb_ld_side *s, size_t used, bool *all, struct rr_error *err)
{
    bool got = true;

    memmove(s->w, s->w + used, (s->n - used) * sizeof(*s->w));
    memmove(s->off, s->off + used, (s->n - used) * sizeof(*s->off));
    s->n -= used;
    s->base += used;
    while (s->n < WB_LD_WINDOW) {
        uint64_t off, len, hash;
        if (wb_ld_next_line(&s->r, &off, &len, &hash, &got, err) < 0)
            return -1;
        if (!got)
            break;
        s->w[s->n] = (struct wb_line){.s = NULL, .len = (size_t)len, .hash = hash};
        s->off[s->n++] = off;
    }
    *all = !got || s->r.buf_off + s->r.pos >= s->r.size;
    return 0;
}

/* The cut at k fell inside a run of deletions (or insertions) that a run
 * of the other kind follows, a replaced block: give out as many of those as
 * of the first, so both sides move on together (else one side runs ahead
 * alone through lines the other still has, and the diff loses its way).
 * Returns the new number of edits given out. */
static size_t balance(struct wb_edit *v, size_t n, size_t k)
{
    size_t r0 = k, r1 = k, i, j;
    enum wb_edit_op x, y;

    if (k == 0 || k >= n || v[k - 1].op == WB_EQ || v[k].op != v[k - 1].op)
        return k;
    x = v[k - 1].op;
    y = x == WB_DEL ? WB_INS : WB_DEL;
    while (r0 > 0 && v[r0 - 1].op == x)
        r0--;
    while (r1 < n && v[r1].op == x)
        r1++;
    i = k - r0;
    for (j = 0; j < i && r1 + j < n && v[r1 + j].op == y; j++) {
        struct wb_edit e = v[r1 + j];
        if (x == WB_DEL)
            e.a = v[r0].a + i; /* after the i deletions given out */
        else
            e.b = v[r0].b + i;
        v[k + j] = e;
    }
    return k + j;
}

#define RESYNC_RUN 4

/* Myers gave up on this window (more than WB_LD_MAX_D edits): find the
 * nearest place the two windows agree again, the pair (i, j) of smallest
 * i + j where RESYNC_RUN lines (or all that is left) match, through an
 * index of a's lines by hash. The edits given out are then: delete a[0..i),
 * insert b[0..j); the next window starts aligned. False when none. */
static bool resync(const struct wb_ldiff *d, size_t *bi, size_t *bj)
{
    enum { SLOTS = 2 * WB_LD_WINDOW };
    static const size_t none = (size_t)-1;
    size_t slot[SLOTS], chain[WB_LD_WINDOW], best = none;
    const struct wb_line *a = d->a.w, *b = d->b.w;

    for (size_t i = 0; i < SLOTS; i++)
        slot[i] = none;
    for (size_t i = d->a.n; i-- > 0;) { /* chains in increasing i */
        size_t h = a[i].hash % SLOTS;
        chain[i] = slot[h];
        slot[h] = i;
    }
    for (size_t j = 0; j < d->b.n && (best == none || j < best); j++)
        for (size_t i = slot[b[j].hash % SLOTS]; i != none && (best == none || i + j < best);
             i = chain[i]) {
            size_t k = 0;
            while (k < RESYNC_RUN && i + k < d->a.n && j + k < d->b.n &&
                   a[i + k].hash == b[j + k].hash && a[i + k].len == b[j + k].len)
                k++;
            if (k == RESYNC_RUN || i + k == d->a.n || j + k == d->b.n) {
                best = i + j;
                *bi = i;
                *bj = j;
            }
        }
    return best != none && best > 0;
}

static int resync_script(struct wb_ldiff *d, size_t i, size_t j, struct rr_error *err)
{
    struct wb_edit *v = realloc(d->script, (i + j + 1) * sizeof(*v));

    if (v == NULL)
        return rr_fail(err, ENOMEM, "patch");
    for (size_t k = 0; k < i; k++)
        v[k] = (struct wb_edit){WB_DEL, k, 0};
    for (size_t k = 0; k < j; k++)
        v[i + k] = (struct wb_edit){WB_INS, i, k};
    d->script = v;
    d->ns = i + j;
    d->ca = i;
    d->cb = j;
    return 0;
}

/* A new window: diff it, and keep the edits up to its middle unless it
 * holds the rest of both files. */
static int next_window(struct wb_ldiff *d, struct rr_error *err)
{
    bool all_a, all_b, capped = false;
    size_t ca = 0, cb = 0, k = 0, ri = 0, rj = 0;

    if (slide(&d->a, d->ca, &all_a, err) < 0 || slide(&d->b, d->cb, &all_b, err) < 0)
        return -1;
    free(d->script);
    d->script = NULL;
    d->ns = d->si = d->ca = d->cb = 0;
    if (d->a.n == 0 && d->b.n == 0) {
        d->done = true;
        return 0;
    }
    if (wb_myers_bounded(d->a.w, d->a.n, d->b.w, d->b.n, WB_LD_MAX_D, &d->script, &d->ns,
                         &capped, err) < 0)
        return -1;
    if (capped && resync(d, &ri, &rj))
        return resync_script(d, ri, rj, err);
    for (; k < d->ns; k++) {
        if (!(all_a && all_b) && (ca >= WB_LD_WINDOW / 2 || cb >= WB_LD_WINDOW / 2))
            break;
        ca += d->script[k].op != WB_INS;
        cb += d->script[k].op != WB_DEL;
    }
    if (k < d->ns) {
        size_t kb = balance(d->script, d->ns, k);
        for (size_t i = k; i < kb; i++) {
            ca += d->script[i].op != WB_INS;
            cb += d->script[i].op != WB_DEL;
        }
        k = kb;
    }
    d->ns = k;
    d->ca = ca;
    d->cb = cb;
    return 0;
}

int wb_ldiff_next(struct wb_ldiff *d, struct wb_ld_edit *e, bool *end, struct rr_error *err)
{
    while (!d->done && d->si == d->ns)
        if (next_window(d, err) < 0)
            return -1;
    *end = d->done;
    if (d->done)
        return 0;
    const struct wb_edit *x = &d->script[d->si++];
    e->op = x->op;
    e->ia = d->a.base + x->a;
    e->ib = d->b.base + x->b;
    if (x->op == WB_INS) {
        e->off = d->b.off[x->b];
        e->len = d->b.w[x->b].len;
    } else {
        e->off = d->a.off[x->a];
        e->len = d->a.w[x->a].len;
    }
    return 0;
}
