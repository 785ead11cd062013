#include "writeback/patch/siphash.h"

#include <string.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sipround(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = ROTL(v[1], 13);
    v[1] ^= v[0];
    v[0] = ROTL(v[0], 32);
    v[2] += v[3];
    v[3] = ROTL(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = ROTL(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = ROTL(v[1], 17);
    v[1] ^= v[2];
    v[2] = ROTL(v[2], 32);
}

static void compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sipround(v);
    sipround(v);
    v[0] ^= m;
}

void wb_siphash_init(struct wb_siphash *s, const uint64_t key[2])
{
    s->v[0] = key[0] ^ 0x736f6d6570736575ULL;
    s->v[1] = key[1] ^ 0x646f72616e646f6dULL;
    s->v[2] = key[0] ^ 0x6c7967656e657261ULL;
    s->v[3] = key[1] ^ 0x7465646279746573ULL;
    s->m = 0;
    s->mlen = 0;
    s->total = 0;
}

static uint64_t load_le64(const unsigned char *p)
{
    uint64_t x = 0;

    for (int i = 7; i >= 0; i--)
        x = x << 8 | p[i];
    return x;
}

void wb_siphash_update(struct wb_siphash *s, const void *data, size_t len)
{
    const unsigned char *p = data;

    s->total += len;
    while (len > 0 && s->mlen != 0) {
        s->m |= (uint64_t)*p++ << (8 * s->mlen);
        len--;
        if (++s->mlen == 8) {
            compress(s->v, s->m);
            s->m = 0;
            s->mlen = 0;
        }
    }
    for (; len >= 8; p += 8, len -= 8)
        compress(s->v, load_le64(p));
    for (; len > 0; len--)
        s->m |= (uint64_t)*p++ << (8 * s->mlen++);
}

uint64_t wb_siphash_final(const struct wb_siphash *s)
{
    uint64_t v[4], b = (s->total << 56) | s->m;

    memcpy(v, s->v, sizeof(v));
    compress(v, b);
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++)
        sipround(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
