/* The pack reader (gitidx, gitpack, gitdelta) on packs built here, honest
 * and hostile: every check and cap has a case that reaches it, and the
 * honest cases show what passes (plain, OFS_DELTA, REF_DELTA, the 64-bit
 * offset table, a chain exactly at the depth cap, an object exactly at its
 * size cap). The walk over packs on disk: test_wb_gitpackdir.c. */
#include <stdio.h>

#include "tests/tap.h"
#include "tests/test_packbuild.h"
#include "writeback/git/gitdelta.h"
#include "writeback/git/gitidx.h"
#include "writeback/git/gitlog.h"
#include "writeback/git/gitpack.h"

static void mkid(unsigned char id[20], unsigned v)
{
    for (int i = 0; i < 20; i++)
        id[i] = (unsigned char)(v * 37 + (unsigned)i * 11);
    id[0] = (unsigned char)v;
}

static struct wb_span mem(const struct buf *b)
{
    return (struct wb_span){.fd = -1, .buf = b->b, .size = b->len};
}

struct one {
    struct wb_pack p;
    struct wb_packset s;
};

/* A set of the one pack, its index idx: NULL, or why it was not taken. */
static const char *one_open(struct one *o, const struct packb *pb, const struct buf *idx)
{
    struct wb_span is = mem(idx), ps = mem(&pb->pack);
    const char *why = wb_packidx_load(&o->p.ix, &is);

    if (why == NULL)
        why = wb_pack_check(&o->p.ix, &ps);
    o->p.pack = ps;
    o->s = (struct wb_packset){.p = &o->p, .n = 1};
    return why;
}

/* Read id: 1 and the bytes compared with want (NULL: not compared); 0 and *why. */
static int get(struct wb_packset *s, unsigned v, size_t max, const char *want, const char **why)
{
    unsigned char id[20];
    enum wb_obj_type type = 0;
    struct rr_error err;
    char *out = NULL;
    size_t len = 0;
    int r;

    mkid(id, v);
    r = wb_packset_read(s, id, max, &type, &out, &len, why, &err);
    if (r == 1 && want != NULL && (len != strlen(want) || memcmp(out, want, len) != 0)) {
        printf("#   object %u: %zu bytes, not the %zu expected\n", v, len, strlen(want));
        r = -2;
    }
    if (r == 1 && type != WB_OBJ_COMMIT)
        r = -3;
    if (r == 0 && *why != NULL)
        printf("#   object %u: %s\n", v, *why);
    free(out);
    return r;
}

static const char C0[] = "tree 0123456789abcdef0123456789abcdef01234567\n"
                         "author a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\n"
                         "base commit with a body long enough to be worth a delta\n";
static const char C1[] = "tree 0123456789abcdef0123456789abcdef01234567\n"
                         "author a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\n"
                         "the first delta on it\n";
static const char C2[] = "tree 0123456789abcdef0123456789abcdef01234567\n"
                         "author a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\n"
                         "a REF_DELTA on the first delta\n";

#define KEEP 60 /* bytes the three share at the start */

/* 0: C0 whole; 1: OFS_DELTA on 0; 2: REF_DELTA on 1; 3: OFS_DELTA on 2 (C1 again). */
static void honest(struct packb *pb)
{
    unsigned char id[20], base[20];
    struct buf d = {0};
    uint64_t o0, o2;

    packb_init(pb);
    mkid(id, 0);
    o0 = packb_obj(pb, id, WB_OBJ_COMMIT, C0, strlen(C0), strlen(C0));
    delta_make(&d, strlen(C0), KEEP, C1, strlen(C1));
    mkid(id, 1);
    packb_ofs_delta(pb, id, o0, &d);
    delta_make(&d, strlen(C1), KEEP, C2, strlen(C2));
    mkid(id, 2);
    mkid(base, 1);
    o2 = packb_ref_delta(pb, id, base, &d);
    delta_make(&d, strlen(C2), KEEP, C1, strlen(C1));
    mkid(id, 3);
    packb_ofs_delta(pb, id, o2, &d);
    packb_end(pb);
    free(d.b);
}

TEST(pack_reads_plain_ofs_and_ref_deltas)
{
    for (int large = 0; large < 2; large++) {
        struct packb pb;
        struct buf idx = {0};
        struct one o;
        const char *why;
        honest(&pb);
        packb_index(&pb, &idx, large);
        CHECK(one_open(&o, &pb, &idx) == NULL);
        CHECK(o.p.ix.n == 4 && o.p.ix.n_large == (large ? 4u : 0u));
        CHECK(get(&o.s, 0, WB_COMMIT_MAX, C0, &why) == 1);
        CHECK(get(&o.s, 1, WB_COMMIT_MAX, C1, &why) == 1);
        CHECK(get(&o.s, 2, WB_COMMIT_MAX, C2, &why) == 1);
        CHECK(get(&o.s, 3, WB_COMMIT_MAX, C1, &why) == 1);
        CHECK(get(&o.s, 9, WB_COMMIT_MAX, NULL, &why) == 0 && why == NULL); /* not there */
        CHECK(o.s.entries == 1 + 2 + 3 + 4);
        packb_free(&pb);
        free(idx.b);
    }
}

/* Replace idx's bytes [at, at+n) by nothing (a cut) and close the gap. */
static void cut(struct buf *b, size_t at, size_t n)
{
    memmove(b->b + at, b->b + at + n, b->len - at - n);
    b->len -= n;
}

static const char *idx_why(const struct buf *idx)
{
    struct wb_packidx ix;
    struct wb_span s = mem(idx);

    return wb_packidx_load(&ix, &s);
}

TEST(pack_index_is_checked)
{
    struct packb pb;
    struct buf idx = {0}, bad = {0};
    struct one o;
    const char *why;

    honest(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(idx_why(&idx) == NULL);
#define MUTATE(stmt)                                                                               \
    do {                                                                                           \
        bad.len = 0;                                                                               \
        buf_put(&bad, idx.b, idx.len);                                                             \
        stmt;                                                                                      \
    } while (0)
    MUTATE(bad.b[1] = 'X');
    CHECK((why = idx_why(&bad)) != NULL && strcmp(why, "not a pack index") == 0);
    MUTATE(bad.b[7] = 1);
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "version") != NULL);
    /* fanout[200] above fanout[201]: decreasing */
    MUTATE(bad.b[8 + 4 * 200 + 3] = 9);
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "fanout decreases") != NULL);
    MUTATE(bad.len -= 1);
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "shorter") != NULL);
    MUTATE(bad.len = 8 + 1024 - 4);
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "shorter than its fanout") != NULL);
    MUTATE(buf_put(&bad, "1234", 4));
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "longer") != NULL);
    /* a 64-bit table of more entries than objects */
    MUTATE(for (int i = 0; i < 5; i++) buf_put(&bad, "12345678", 8));
    CHECK((why = idx_why(&bad)) != NULL && strstr(why, "longer") != NULL);
    /* the last object's offset names a 64-bit entry that is not there */
    free(idx.b);
    idx = (struct buf){0};
    packb_index(&pb, &idx, 1);
    MUTATE(cut(&bad, bad.len - 40 - 8, 8));
    CHECK(one_open(&o, &pb, &bad) == NULL);
    CHECK(o.p.ix.n_large == 3);
    unsigned hit = 0;
    for (unsigned v = 0; v < 4; v++)
        if (get(&o.s, v, WB_COMMIT_MAX, NULL, &why) == 0 && why != NULL &&
            strstr(why, "past its 64-bit table") != NULL)
            hit++;
    CHECK(hit == 1);
#undef MUTATE
    packb_free(&pb);
    free(idx.b);
    free(bad.b);
}

TEST(pack_header_is_checked)
{
    struct packb pb;
    struct buf idx = {0};
    struct one o;
    const char *why;

    honest(&pb);
    packb_index(&pb, &idx, 0);
    pb.pack.b[0] = 'Q';
    CHECK((why = one_open(&o, &pb, &idx)) != NULL && strcmp(why, "not a pack") == 0);
    pb.pack.b[0] = 'P';
    pb.pack.b[7] = 4;
    CHECK((why = one_open(&o, &pb, &idx)) != NULL && strstr(why, "version") != NULL);
    pb.pack.b[7] = 2;
    pb.pack.b[11] = 5;
    CHECK((why = one_open(&o, &pb, &idx)) != NULL && strstr(why, "number of objects") != NULL);
    pb.pack.b[11] = 4;
    pb.pack.b[pb.pack.len - 1] ^= 1;
    CHECK((why = one_open(&o, &pb, &idx)) != NULL && strstr(why, "trailer") != NULL);
    pb.pack.b[pb.pack.len - 1] ^= 1;
    CHECK(one_open(&o, &pb, &idx) == NULL);
    packb_free(&pb);
    free(idx.b);
}

/* The index's 32-bit offset of the object at sorted position i, set to off. */
static void set_off(struct buf *idx, uint32_t n, uint32_t i, uint32_t off)
{
    unsigned char *p = idx->b + 8 + 1024 + (size_t)n * 24 + (size_t)i * 4;

    p[0] = (unsigned char)(off >> 24);
    p[1] = (unsigned char)(off >> 16);
    p[2] = (unsigned char)(off >> 8);
    p[3] = (unsigned char)off;
}

/* Object v's sorted position in pb's index. */
static uint32_t pos_of(const struct packb *pb, unsigned v)
{
    unsigned char id[20];
    uint32_t below = 0;

    mkid(id, v);
    for (size_t i = 0; i < pb->n; i++)
        below += memcmp(pb->obj[i].id, id, 20) < 0;
    return below;
}

TEST(pack_offsets_stay_inside_the_pack)
{
    struct packb pb;
    struct buf idx = {0};
    struct one o;
    const char *why;

    honest(&pb);
    packb_index(&pb, &idx, 0);
    set_off(&idx, 4, pos_of(&pb, 0), (uint32_t)pb.pack.len + 100);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 0, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "outside the pack") != NULL);
    /* in the trailer, in the header */
    set_off(&idx, 4, pos_of(&pb, 0), (uint32_t)pb.pack.len - 20);
    CHECK(get(&o.s, 0, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "outside the pack") != NULL);
    set_off(&idx, 4, pos_of(&pb, 0), 4);
    CHECK(get(&o.s, 0, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "outside the pack") != NULL);
    /* object 1 (an OFS_DELTA on 0, at 12) read as if it lay at 12: its
     * base distance now reaches before the pack's start */
    packb_free(&pb);
    free(idx.b);

    unsigned char id[20];
    struct buf d = {0};
    packb_init(&pb);
    delta_make(&d, 10, 0, C1, strlen(C1));
    mkid(id, 1);
    packb_ofs_delta(&pb, id, 0, &d); /* distance 12: to offset 0 */
    packb_end(&pb);
    idx = (struct buf){0};
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 1, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strstr(why, "base lies outside the pack") != NULL);
    packb_free(&pb);
    free(idx.b);
    free(d.b);
}

/* A pack of object 0 (C0) and n OFS_DELTAs, each on the one before (the
 * last, object n, is C0 again). */
static void chain(struct packb *pb, unsigned n)
{
    unsigned char id[20];
    struct buf d = {0};
    uint64_t prev;

    packb_init(pb);
    mkid(id, 0);
    prev = packb_obj(pb, id, WB_OBJ_COMMIT, C0, strlen(C0), strlen(C0));
    delta_make(&d, strlen(C0), strlen(C0), C0, strlen(C0)); /* copy it all */
    for (unsigned i = 1; i <= n; i++) {
        mkid(id, i);
        prev = packb_ofs_delta(pb, id, prev, &d);
    }
    packb_end(pb);
    free(d.b);
}

TEST(delta_chain_is_capped_at_50)
{
    struct packb pb;
    struct buf idx = {0};
    struct one o;
    const char *why;

    chain(&pb, WB_PACK_DEPTH_MAX + 1);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, WB_PACK_DEPTH_MAX, WB_COMMIT_MAX, C0, &why) == 1);
    CHECK(get(&o.s, WB_PACK_DEPTH_MAX + 1, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strcmp(why, "a delta chain deeper than 50") == 0);
    packb_free(&pb);
    free(idx.b);
}

TEST(ref_delta_cycle_ends_at_the_cap)
{
    unsigned char a[20], b[20];
    struct packb pb;
    struct buf idx = {0}, d = {0};
    struct one o;
    const char *why;

    mkid(a, 1);
    mkid(b, 2);
    delta_make(&d, strlen(C0), 0, C0, strlen(C0));
    packb_init(&pb);
    packb_ref_delta(&pb, a, b, &d);
    packb_ref_delta(&pb, b, a, &d);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 1, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strcmp(why, "a delta chain deeper than 50") == 0);
    CHECK(o.s.entries == WB_PACK_DEPTH_MAX + 1);
    CHECK(o.s.spent == 0); /* headers only: nothing was inflated */
    /* a base named by a REF_DELTA that no pack holds */
    mkid(b, 7);
    packb_free(&pb);
    packb_init(&pb);
    packb_ref_delta(&pb, a, b, &d);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 1, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "in no pack") != NULL);
    packb_free(&pb);
    free(idx.b);
    free(d.b);
}

TEST(declared_sizes_are_capped)
{
    size_t big = WB_COMMIT_MAX + 1;
    char *text = malloc(WB_PACK_OBJ_MAX + 2);
    unsigned char id[20], base[20];
    struct packb pb;
    struct buf idx = {0}, d = {0};
    struct one o;
    const char *why;
    uint64_t o3;

    memset(text, 'c', WB_PACK_OBJ_MAX + 1);
    text[WB_PACK_OBJ_MAX + 1] = '\0';
    packb_init(&pb);
    mkid(id, 1); /* a commit exactly at the cap, and one byte over it */
    packb_obj(&pb, id, WB_OBJ_COMMIT, text, WB_COMMIT_MAX, WB_COMMIT_MAX);
    mkid(id, 2);
    packb_obj(&pb, id, WB_OBJ_COMMIT, text, big, big);
    mkid(id, 3); /* a base over 1 MiB, then a small delta on it */
    o3 = packb_obj(&pb, id, WB_OBJ_COMMIT, text, WB_PACK_OBJ_MAX + 1, WB_PACK_OBJ_MAX + 1);
    delta_make(&d, WB_PACK_OBJ_MAX + 1, 100, text, 100);
    mkid(id, 4);
    packb_ofs_delta(&pb, id, o3, &d);
    mkid(id, 5); /* a delta whose result is one byte over the commit cap */
    delta_make(&d, WB_COMMIT_MAX, 0, text, big);
    mkid(base, 1);
    packb_ref_delta(&pb, id, base, &d);
    mkid(id, 6); /* a delta itself over 1 MiB (its result would be small) */
    d.len = 0;
    delta_size(&d, WB_COMMIT_MAX);
    delta_size(&d, 10);
    for (size_t i = 0; i < (WB_PACK_OBJ_MAX + 127) / 127 + 1; i++) {
        buf_byte(&d, 127);
        buf_put(&d, text, 127);
    }
    packb_ofs_delta(&pb, id, pb.obj[0].off, &d);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    text[WB_COMMIT_MAX] = '\0';
    CHECK(get(&o.s, 1, WB_COMMIT_MAX, text, &why) == 1);
    CHECK(get(&o.s, 2, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "declared over") != NULL);
    CHECK(get(&o.s, 4, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "declared over") != NULL);
    CHECK(get(&o.s, 5, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strstr(why, "result is over the cap") != NULL);
    CHECK(get(&o.s, 6, WB_COMMIT_MAX, NULL, &why) == 0 && strstr(why, "declared over") != NULL);
    packb_free(&pb);
    free(idx.b);
    free(d.b);
    free(text);
}

TEST(zlib_bomb_and_short_stream_are_refused)
{
    size_t bomb = 512u << 10;
    char *zeros = calloc(1, bomb);
    unsigned char id[20];
    struct packb pb;
    struct buf idx = {0};
    struct one o;
    const char *why;

    packb_init(&pb);
    mkid(id, 1); /* declares 100 bytes, inflates to 512 KiB (from ~600 bytes) */
    packb_obj(&pb, id, WB_OBJ_COMMIT, zeros, bomb, 100);
    mkid(id, 2); /* declares 200 bytes, holds 100 */
    packb_obj(&pb, id, WB_OBJ_COMMIT, zeros, 100, 200);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 1, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strstr(why, "does not inflate to its declared size") != NULL);
    /* what the bomb cost: its declared size, and the input zlib could need for it */
    CHECK(o.s.spent <= 100 + 100 / 64 + 1024 + 100);
    CHECK(get(&o.s, 2, WB_COMMIT_MAX, NULL, &why) == 0 &&
          strstr(why, "does not inflate to its declared size") != NULL);
    packb_free(&pb);
    free(idx.b);
    free(zeros);
}

TEST(a_walk_has_a_budget)
{
    char *text = malloc(WB_PACK_OBJ_MAX);
    unsigned char id[20];
    struct packb pb;
    struct buf idx = {0};
    struct one o;
    const char *why = NULL;
    unsigned reads = 0;

    memset(text, 'b', WB_PACK_OBJ_MAX);
    packb_init(&pb);
    mkid(id, 1);
    packb_obj(&pb, id, WB_OBJ_COMMIT, text, WB_PACK_OBJ_MAX, WB_PACK_OBJ_MAX);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    CHECK(get(&o.s, 1, WB_PACK_OBJ_MAX, NULL, &why) == 1);
    uint64_t cost = o.s.spent; /* its 1 MiB and the compressed bytes read for it */
    CHECK(cost > WB_PACK_OBJ_MAX && cost < WB_PACK_OBJ_MAX + 4096);
    reads = 1;
    while (reads < 1000 && get(&o.s, 1, WB_PACK_OBJ_MAX, NULL, &why) == 1)
        reads++;
    CHECK(reads == WB_PACK_BUDGET / cost);
    CHECK(why != NULL && strstr(why, "more bytes than one walk") != NULL);
    packb_free(&pb);
    free(idx.b);
    free(text);
    idx = (struct buf){0};

    /* entry headers: a 50-deep chain costs 51 */
    chain(&pb, WB_PACK_DEPTH_MAX);
    packb_index(&pb, &idx, 0);
    CHECK(one_open(&o, &pb, &idx) == NULL);
    reads = 0;
    while (reads < 1000 && get(&o.s, WB_PACK_DEPTH_MAX, WB_COMMIT_MAX, C0, &why) == 1)
        reads++;
    CHECK(reads == WB_PACK_ENTRIES_MAX / (WB_PACK_DEPTH_MAX + 1));
    CHECK(why != NULL && strstr(why, "more pack entries") != NULL);

    /* index lookups: an id no pack holds, asked again and again */
    CHECK(one_open(&o, &pb, &idx) == NULL);
    reads = 0;
    while (reads < 100000 && get(&o.s, 999, WB_COMMIT_MAX, NULL, &why) == 0 && why == NULL)
        reads++;
    CHECK(reads == WB_PACK_LOOKUPS_MAX);
    CHECK(why != NULL && strstr(why, "index lookups") != NULL);
    packb_free(&pb);
    free(idx.b);
}

static const char *apply(const char *base, const struct buf *d, size_t max)
{
    struct rr_error err;
    const char *why = NULL;
    char *out = NULL;
    size_t len;
    int r = wb_git_delta_apply((const unsigned char *)base, strlen(base), d->b, d->len, max, &out,
                               &len, &why, &err);

    free(out);
    return r == 1 ? NULL : why;
}

TEST(delta_instructions_are_checked)
{
    struct buf d = {0};
    const char *why;

    delta_make(&d, 5, 5, "hello world", 11);
    CHECK(apply("hello", &d, 100) == NULL);
    CHECK((why = apply("hell", &d, 100)) != NULL && strstr(why, "another size") != NULL);
    CHECK((why = apply("hello", &d, 10)) != NULL && strstr(why, "over the cap") != NULL);
    /* a copy past the base: offset 3, size 3 of 5 bytes */
    d.len = 0;
    delta_size(&d, 5);
    delta_size(&d, 3);
    buf_byte(&d, 0x80 | 0x01 | 0x10);
    buf_byte(&d, 3);
    buf_byte(&d, 3);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "past its base") != NULL);
    d.len -= 1; /* and cut inside it */
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "cut inside a copy") != NULL);
    /* an insert of 9 bytes with 2 there */
    d.len = 0;
    delta_size(&d, 5);
    delta_size(&d, 9);
    buf_byte(&d, 9);
    buf_put(&d, "ab", 2);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "cut inside an insert") != NULL);
    /* the reserved instruction */
    d.len = 0;
    delta_size(&d, 5);
    delta_size(&d, 1);
    buf_byte(&d, 0);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "reserved") != NULL);
    /* more, and fewer, bytes than the result declares */
    d.len = 0;
    delta_size(&d, 5);
    delta_size(&d, 2);
    buf_byte(&d, 3);
    buf_put(&d, "abc", 3);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "past its declared") != NULL);
    d.len = 0;
    delta_size(&d, 5);
    delta_size(&d, 4);
    buf_byte(&d, 3);
    buf_put(&d, "abc", 3);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "shorter than its declared") != NULL);
    /* a size of more than 64 bits */
    d.len = 0;
    for (int i = 0; i < 10; i++)
        buf_byte(&d, 0xff);
    buf_byte(&d, 1);
    CHECK((why = apply("hello", &d, 100)) != NULL && strstr(why, "sizes cannot be read") != NULL);
    free(d.b);
}
