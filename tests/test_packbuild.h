/* Packs and pack indexes built in memory for the tests, honest or hostile:
 * entries of any type with any declared size, OFS_DELTA and REF_DELTA
 * entries pointing anywhere, an index (version 2) over any (id, offset)
 * pairs, optionally through the 64-bit offset table. Ids are whatever the
 * test says: the pack reader never hashes (gitlog.c does). */
#ifndef REVRUN_TEST_PACKBUILD_H
#define REVRUN_TEST_PACKBUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct buf {
    unsigned char *b;
    size_t len, cap;
};

static inline void buf_put(struct buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        if ((b->b = realloc(b->b, b->cap)) == NULL)
            abort();
    }
    if (n > 0)
        memcpy(b->b + b->len, p, n);
    b->len += n;
}

static inline void buf_byte(struct buf *b, unsigned c)
{
    unsigned char x = (unsigned char)c;
    buf_put(b, &x, 1);
}

static inline void buf_be32(struct buf *b, uint32_t v)
{
    unsigned char x[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    buf_put(b, x, 4);
}

static inline void buf_zlib(struct buf *b, const void *p, size_t n)
{
    uLongf zl = compressBound((uLong)n);
    unsigned char *z = malloc(zl);

    if (z == NULL || compress2(z, &zl, p, (uLong)n, 6) != Z_OK)
        abort();
    buf_put(b, z, zl);
    free(z);
}

struct pack_obj {
    unsigned char id[20];
    uint64_t off;
};

struct packb {
    struct buf pack;
    struct pack_obj obj[128];
    size_t n;
};

static inline void packb_init(struct packb *p)
{
    memset(p, 0, sizeof(*p));
    buf_put(&p->pack, "PACK", 4);
    buf_be32(&p->pack, 2);
    buf_be32(&p->pack, 0); /* the count, set by packb_end */
}

/* An entry header: type, then a declared size (any, true or not). */
static inline void packb_head(struct packb *p, int type, uint64_t size)
{
    unsigned c = (unsigned)(type << 4) | (unsigned)(size & 15);

    size >>= 4;
    while (size) {
        buf_byte(&p->pack, c | 0x80);
        c = size & 0x7f;
        size >>= 7;
    }
    buf_byte(&p->pack, c);
}

/* Start an entry named id (an index line): its offset. */
static inline uint64_t packb_begin(struct packb *p, const unsigned char id[20])
{
    struct pack_obj *o = &p->obj[p->n++];

    memcpy(o->id, id, 20);
    o->off = p->pack.len;
    return o->off;
}

/* A whole object: declared says its size, data is what is compressed. */
static inline uint64_t packb_obj(struct packb *p, const unsigned char id[20], int type,
                                 const void *data, size_t len, uint64_t declared)
{
    uint64_t off = packb_begin(p, id);

    packb_head(p, type, declared);
    buf_zlib(&p->pack, data, len);
    return off;
}

/* git's OFS_DELTA distance encoding. */
static inline void packb_ofs(struct packb *p, uint64_t d)
{
    unsigned char tmp[16];
    int i = 15;

    tmp[i] = d & 0x7f;
    while (d >>= 7)
        tmp[--i] = 0x80 | (--d & 0x7f);
    buf_put(&p->pack, tmp + i, (size_t)(16 - i));
}

static inline uint64_t packb_ofs_delta(struct packb *p, const unsigned char id[20], uint64_t base_off,
                                       const struct buf *delta)
{
    uint64_t off = packb_begin(p, id);

    packb_head(p, 6, delta->len);
    packb_ofs(p, off - base_off);
    buf_zlib(&p->pack, delta->b, delta->len);
    return off;
}

static inline uint64_t packb_ref_delta(struct packb *p, const unsigned char id[20],
                                       const unsigned char base[20], const struct buf *delta)
{
    uint64_t off = packb_begin(p, id);

    packb_head(p, 7, delta->len);
    buf_put(&p->pack, base, 20);
    buf_zlib(&p->pack, delta->b, delta->len);
    return off;
}

static inline void delta_size(struct buf *d, uint64_t v)
{
    do {
        unsigned c = v & 0x7f;
        v >>= 7;
        buf_byte(d, c | (v ? 0x80 : 0));
    } while (v);
}

/* A delta making result out of a base of blen bytes: copy the first keep
 * bytes of the base (keep <= blen and <= 0xffff), insert the rest. */
static inline void delta_make(struct buf *d, size_t blen, size_t keep, const void *result,
                              size_t rlen)
{
    const unsigned char *r = result;

    d->len = 0;
    delta_size(d, blen);
    delta_size(d, rlen);
    if (keep > 0) {
        buf_byte(d, 0x80 | 0x01 | 0x02 | 0x10 | 0x20); /* offset 0, two size bytes */
        buf_byte(d, 0);
        buf_byte(d, 0);
        buf_byte(d, keep & 0xff);
        buf_byte(d, (keep >> 8) & 0xff);
    }
    for (size_t at = keep; at < rlen; at += 127) {
        size_t n = rlen - at < 127 ? rlen - at : 127;
        buf_byte(d, (unsigned)n);
        buf_put(d, r + at, n);
    }
}

/* Close the pack: its count and a trailer (any 20 bytes: the index records
 * the same). */
static inline void packb_end(struct packb *p)
{
    unsigned char sum[20];

    for (int i = 0; i < 20; i++)
        sum[i] = (unsigned char)(0xa0 + i);
    p->pack.b[8] = (unsigned char)(p->n >> 24);
    p->pack.b[9] = (unsigned char)(p->n >> 16);
    p->pack.b[10] = (unsigned char)(p->n >> 8);
    p->pack.b[11] = (unsigned char)p->n;
    buf_put(&p->pack, sum, 20);
}

static inline int obj_cmp(const void *a, const void *b)
{
    return memcmp(((const struct pack_obj *)a)->id, ((const struct pack_obj *)b)->id, 20);
}

/* The index of p (packb_end first); large: every offset through the 64-bit table. */
static inline void packb_index(struct packb *p, struct buf *idx, int large)
{
    struct pack_obj o[128];
    uint32_t count = 0;

    memcpy(o, p->obj, sizeof(o));
    qsort(o, p->n, sizeof(o[0]), obj_cmp);
    idx->len = 0;
    buf_put(idx, "\377tOc", 4);
    buf_be32(idx, 2);
    for (unsigned f = 0; f < 256; f++) {
        while (count < p->n && o[count].id[0] <= f)
            count++;
        buf_be32(idx, count);
    }
    for (size_t i = 0; i < p->n; i++)
        buf_put(idx, o[i].id, 20);
    for (size_t i = 0; i < p->n; i++)
        buf_be32(idx, 0); /* crc32: not read */
    for (size_t i = 0; i < p->n; i++)
        buf_be32(idx, large ? 0x80000000u | (uint32_t)i : (uint32_t)o[i].off);
    for (size_t i = 0; large && i < p->n; i++) {
        buf_be32(idx, (uint32_t)(o[i].off >> 32));
        buf_be32(idx, (uint32_t)o[i].off);
    }
    buf_put(idx, p->pack.b + p->pack.len - 20, 20);
    buf_put(idx, "idx-trailer-20-bytes", 20);
}

static inline void packb_free(struct packb *p)
{
    free(p->pack.b);
    p->pack.b = NULL;
}

#endif
