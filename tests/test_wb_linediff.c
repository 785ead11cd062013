/* writeback/patch/linediff.c: a diff in bounded memory that is still a correct
 * diff (the edits turn a into b) past its window, and binpatch's streamed
 * literal is the in-memory one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/patch/binpatch.h"
#include "writeback/patch/linediff.h"

static int memfile(const char *data, size_t len)
{
    int fd = memfd_create("t", MFD_CLOEXEC);

    if (fd < 0 || write(fd, data, len) != (ssize_t)len)
        abort();
    return fd;
}

static unsigned long long rnd = 88172645463325252ULL;

static unsigned next(void)
{
    rnd ^= rnd << 13;
    rnd ^= rnd >> 7;
    rnd ^= rnd << 17;
    return (unsigned)rnd;
}

/* Apply the edits to a; true when that gives b, every line accounted for
 * in order. *changed counts DEL and INS. */
static bool edits_rebuild(const char *a, size_t alen, const char *b, size_t blen,
                          size_t *changed)
{
    int fa = memfile(a, alen), fb = memfile(b, blen);
    const uint64_t key[2] = {1, 2};
    struct wb_ldiff d;
    struct rr_error err;
    char *out = malloc(blen + 1);
    size_t o = 0;
    uint64_t ia = 0, ib = 0;
    bool ok = true, end = false;

    *changed = 0;
    if (wb_ldiff_init(&d, fa, alen, fb, blen, key, &err) < 0)
        abort();
    while (ok) {
        struct wb_ld_edit e;
        if (wb_ldiff_next(&d, &e, &end, &err) < 0)
            abort();
        if (end)
            break;
        ok = e.ia == ia && e.ib == ib;
        if (e.op != WB_INS)
            ia++;
        if (e.op != WB_DEL)
            ib++;
        if (e.op == WB_DEL) {
            ++*changed;
            continue;
        }
        const char *src = e.op == WB_EQ ? a : b;
        *changed += e.op == WB_INS;
        ok = ok && o + e.len <= blen;
        if (ok) {
            memcpy(out + o, src + e.off, e.len);
            o += e.len;
        }
    }
    ok = ok && o == blen && memcmp(out, b, blen) == 0;
    wb_ldiff_free(&d);
    free(out);
    close(fa);
    close(fb);
    return ok;
}

static size_t gen(char *buf, size_t nlines, unsigned alphabet)
{
    size_t o = 0;

    for (size_t i = 0; i < nlines; i++)
        o += (size_t)sprintf(buf + o, "l%u\n", next() % alphabet);
    return o;
}

TEST(random_edits_rebuild_the_new_file)
{
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + next() % 9000, changed;
        char *a = malloc(n * 16 + 16), *b = malloc(n * 32 + 64);
        size_t alen = gen(a, n, round % 2 ? 50 : 1000000), blen = 0;
        /* b: a with random deletions, insertions and changes */
        for (const char *p = a; p < a + alen;) {
            const char *nl = memchr(p, '\n', (size_t)(a + alen - p));
            size_t l = (size_t)(nl - p) + 1;
            unsigned r = next() % 100;
            if (r < 5)
                blen += (size_t)sprintf(b + blen, "new%u\n", next());
            if (r >= 5 && r < 8) {
                p += l;
                continue;
            }
            memcpy(b + blen, p, l);
            blen += l;
            p += l;
        }
        if (round % 5 == 0 && blen > 0) /* no newline at the end */
            blen--;
        CHECK(edits_rebuild(a, alen, b, blen, &changed));
        free(a);
        free(b);
    }
}

TEST(a_block_replaced_past_the_window_resyncs)
{
    enum { N = 6 * WB_LD_WINDOW };
    char *a = malloc(N * 16), *b = malloc(N * 16);
    size_t alen = 0, blen = 0, changed;

    for (int i = 0; i < N; i++) {
        alen += (size_t)sprintf(a + alen, "line %d\n", i);
        if (i >= N / 3 && i < N / 3 + 2500) /* 2,500 lines become 1,200 */
            blen += i < N / 3 + 1200 ? (size_t)sprintf(b + blen, "block %d\n", i) : 0;
        else
            blen += (size_t)sprintf(b + blen, "line %d\n", i);
    }
    CHECK(edits_rebuild(a, alen, b, blen, &changed));
    /* the lines after the block are found again: not a rewrite of the rest */
    CHECK(changed <= 2500 + 1200 + 2 * WB_LD_WINDOW);
    free(a);
    free(b);
}

TEST(empty_sides)
{
    size_t changed;

    CHECK(edits_rebuild("", 0, "a\nb\n", 4, &changed) && changed == 2);
    CHECK(edits_rebuild("a\nb\n", 4, "", 0, &changed) && changed == 2);
    CHECK(edits_rebuild("same\n", 5, "same\n", 5, &changed) && changed == 0);
}

static int mem_read(void *ctx, uint64_t off, void *buf, size_t n, struct rr_error *err)
{
    (void)err;
    memcpy(buf, (const char *)ctx + off, n);
    return 0;
}

TEST(streamed_literal_is_the_in_memory_one)
{
    size_t sizes[] = {0, 1, 51, 52, 53, 65535, 65536, 200000};

    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k];
        unsigned char *data = malloc(n + 1);
        char *x = NULL, *y = NULL;
        size_t xl = 0, yl = 0;
        struct rr_error err;
        for (size_t i = 0; i < n; i++)
            data[i] = (unsigned char)next();
        FILE *fx = open_memstream(&x, &xl), *fy = open_memstream(&y, &yl);
        CHECK(wb_binpatch_literal(fx, data, n, &err) == 0);
        CHECK(wb_binpatch_literal_from(fy, n, mem_read, data, &err) == 0);
        fclose(fx);
        fclose(fy);
        CHECK(xl == yl && memcmp(x, y, xl) == 0);
        free(x);
        free(y);
        free(data);
    }
}
