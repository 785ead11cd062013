#include "writeback/patch/myers.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

int wb_lines_split(const char *text, size_t len, struct wb_line **out, size_t *n,
                   struct rr_error *err)
{
    size_t cnt = 0, k = 0;
    struct wb_line *v;

    for (size_t i = 0; i < len; i++)
        cnt += text[i] == '\n';
    cnt += len > 0 && text[len - 1] != '\n';
    if ((v = calloc(cnt + 1, sizeof(*v))) == NULL)
        return rr_fail(err, ENOMEM, "diff");
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        v[k++] = (struct wb_line){text + i, end - i, fnv1a(text + i, end - i)};
        i = end;
    }
    *out = v;
    *n = cnt;
    return 0;
}

/* Lines without text (s NULL) are compared by length and keyed hash alone. */
static bool same(const struct wb_line *x, const struct wb_line *y)
{
    return x->hash == y->hash && x->len == y->len &&
           (x->s == NULL || y->s == NULL || memcmp(x->s, y->s, x->len) == 0);
}

struct script {
    struct wb_edit *v;
    size_t n, cap;
};

static int emit(struct script *s, enum wb_edit_op op, size_t a, size_t b)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 256;
        struct wb_edit *nv = realloc(s->v, ncap * sizeof(*nv));
        if (nv == NULL)
            return -1;
        s->v = nv;
        s->cap = ncap;
    }
    s->v[s->n++] = (struct wb_edit){op, a, b};
    return 0;
}

/* Forward search, keeping V of every round to walk back. Returns the number
 * of edits D, or -1 when more than WB_MYERS_MAX_D are needed. */
static long search(const struct wb_line *a, long n, const struct wb_line *b, long m, long max_d,
                   long **vs)
{
    long max = n + m < max_d ? n + m : max_d;

    for (long d = 0; d <= max; d++) {
        long *v = vs[d] = malloc((size_t)(2 * d + 1) * sizeof(long));
        long *prev = d ? vs[d - 1] : NULL;
        if (v == NULL)
            return -2;
        for (long k = -d; k <= d; k += 2) {
            long x;
            if (d == 0)
                x = 0;
            else if (k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]))
                x = prev[k + 1 + (d - 1)]; /* down: an insertion */
            else
                x = prev[k - 1 + (d - 1)] + 1; /* right: a deletion */
            long y = x - k;
            while (x < n && y < m && same(&a[x], &b[y]))
                x++, y++;
            v[k + d] = x;
            if (x >= n && y >= m)
                return d;
        }
    }
    return -1;
}

/* Walk back from (n, m) through the saved rounds, writing edits in reverse. */
static int backtrack(long **vs, long d, long n, long m, struct script *rev, size_t off_a,
                     size_t off_b)
{
    long x = n, y = m;

    for (; d > 0; d--) {
        long *prev = vs[d - 1], k = x - y, pk, px, py;
        bool down = k == -d || (k != d && prev[k - 1 + (d - 1)] < prev[k + 1 + (d - 1)]);
        pk = down ? k + 1 : k - 1;
        px = prev[pk + (d - 1)];
        py = px - pk;
        while (x > px + (down ? 0 : 1) && y > py + (down ? 1 : 0))
            if (emit(rev, WB_EQ, off_a + (size_t)--x, off_b + (size_t)--y) < 0)
                return -1;
        if (down ? emit(rev, WB_INS, off_a + (size_t)x, off_b + (size_t)--y)
                 : emit(rev, WB_DEL, off_a + (size_t)--x, off_b + (size_t)y))
            return -1;
    }
    while (x > 0 && y > 0)
        if (emit(rev, WB_EQ, off_a + (size_t)--x, off_b + (size_t)--y) < 0)
            return -1;
    return 0;
}

static int middle(const struct wb_line *a, size_t na, const struct wb_line *b, size_t nb,
                  size_t off, long max_d, struct script *s, bool *capped)
{
    long **vs = calloc((size_t)max_d + 2, sizeof(long *));
    struct script rev = {0};
    long d;
    int r = 0;

    if (vs == NULL)
        return -1;
    d = search(a + off, (long)na, b + off, (long)nb, max_d, vs);
    if (d == -2) {
        r = -1;
    } else if (d < 0) { /* too many edits: replace the whole middle */
        if (capped)
            *capped = true;
        for (size_t i = 0; i < na && r == 0; i++)
            r = emit(s, WB_DEL, off + i, off);
        for (size_t j = 0; j < nb && r == 0; j++)
            r = emit(s, WB_INS, off + na, off + j);
    } else if ((r = backtrack(vs, d, (long)na, (long)nb, &rev, off, off)) == 0) {
        for (size_t i = rev.n; i > 0 && r == 0; i--)
            r = emit(s, rev.v[i - 1].op, rev.v[i - 1].a, rev.v[i - 1].b);
    }
    for (long i = 0; i <= max_d + 1; i++)
        free(vs[i]);
    free(vs);
    free(rev.v);
    return r;
}

int wb_myers(const struct wb_line *a, size_t na, const struct wb_line *b, size_t nb,
             struct wb_edit **out, size_t *n, struct rr_error *err)
{
    return wb_myers_bounded(a, na, b, nb, WB_MYERS_MAX_D, out, n, NULL, err);
}

int wb_myers_bounded(const struct wb_line *a, size_t na, const struct wb_line *b, size_t nb,
                     long max_d, struct wb_edit **out, size_t *n, bool *capped,
                     struct rr_error *err)
{
    struct script s = {0};
    size_t pre = 0, suf = 0;
    int r = 0;

    while (pre < na && pre < nb && same(&a[pre], &b[pre]))
        pre++;
    while (suf < na - pre && suf < nb - pre && same(&a[na - 1 - suf], &b[nb - 1 - suf]))
        suf++;
    for (size_t i = 0; i < pre && r == 0; i++)
        r = emit(&s, WB_EQ, i, i);
    if (r == 0)
        r = middle(a, na - pre - suf, b, nb - pre - suf, pre, max_d, &s, capped);
    for (size_t i = 0; i < suf && r == 0; i++)
        r = emit(&s, WB_EQ, na - suf + i, nb - suf + i);
    if (r < 0) {
        free(s.v);
        return rr_fail(err, ENOMEM, "diff");
    }
    *out = s.v;
    *n = s.n;
    return 0;
}
