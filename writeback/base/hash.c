#include "writeback/base/hash.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WB_SHA_NI 1
#endif

#include "common/escape.h"

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t rotl(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

void wb_sha256_block_portable(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];

    for (int i = 0; i < 16; i++)
        w[i] = be32(p + 4 * i);
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

#ifdef WB_SHA_NI
/* The same 64 rounds on the CPU's SHA extensions: sha256rnds2 does two
 * rounds on the state held as ABEF and CDGH, sha256msg1/msg2 the message
 * schedule (w[t] from w[t-16], w[t-15], w[t-7], w[t-2]), four words to a
 * register; about a tenth of the instructions of the rounds above. h[] is
 * turned into ABEF/CDGH and back around each block (lanes named lane 0
 * first). */
__attribute__((target("sha,sse4.1"))) static void sha256_block_ni(uint32_t h[8],
                                                                  const unsigned char *p)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xb1);   /* b a d c */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1b); /* h g f e */
    __m128i st0 = _mm_alignr_epi8(t, st1, 8);                                       /* f e b a */
    __m128i w[4], m;

    st1 = _mm_blend_epi16(st1, t, 0xf0); /* h g d c */
    const __m128i abef = st0, cdgh = st1;
    for (int i = 0; i < 4; i++)
        w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
#pragma GCC unroll 16 /* the four w[] stay in registers */
    for (int g = 0; g < 16; g++) {
        /* w[g & 3] holds words 4(g-4).., w[(g + 1) & 3] 4(g-3).., and so on */
        if (g >= 4)
            w[g & 3] = _mm_sha256msg2_epu32(
                _mm_add_epi32(_mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]),
                              _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4)),
                w[(g + 3) & 3]);
        m = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&K256[4 * g]));
        st1 = _mm_sha256rnds2_epu32(st1, st0, m);
        st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(m, 0x0e));
    }
    st0 = _mm_add_epi32(st0, abef);
    st1 = _mm_add_epi32(st1, cdgh);
    t = _mm_shuffle_epi32(st0, 0x1b);                                  /* a b e f */
    st1 = _mm_shuffle_epi32(st1, 0xb1);                                /* g h c d */
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, st1, 0xf0)); /* a b c d */
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(st1, t, 8));    /* e f g h */
}
#endif

bool wb_sha256_block_cpu(uint32_t h[8], const unsigned char *p)
{
#ifdef WB_SHA_NI
    if (__builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1")) {
        sha256_block_ni(h, p);
        return true;
    }
#endif
    (void)h;
    (void)p;
    return false;
}

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
    if (!wb_sha256_block_cpu(h, p))
        wb_sha256_block_portable(h, p);
}

static void sha1_block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];

    for (int i = 0; i < 16; i++)
        w[i] = be32(p + 4 * i);
    for (int i = 16; i < 80; i++)
        w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    for (int i = 0; i < 80; i++) {
        uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5a827999;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ed9eba1;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        uint32_t t = rotl(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rotl(b, 30);
        b = a;
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

/* The Merkle-Damgard framing both hashes share: buffer to 64-byte blocks,
 * then pad with 0x80, zeros and the bit length (big-endian). */
typedef void (*block_fn)(uint32_t *h, const unsigned char *p);

static void md_update(uint32_t *h, unsigned char *buf, size_t *used, uint64_t *total, block_fn fn,
                      const void *data, size_t len)
{
    const unsigned char *p = data;

    *total += len;
    while (len > 0) {
        size_t n = 64 - *used < len ? 64 - *used : len;
        memcpy(buf + *used, p, n);
        *used += n;
        p += n;
        len -= n;
        if (*used == 64) {
            fn(h, buf);
            *used = 0;
        }
    }
}

static void md_final(uint32_t *h, unsigned char *buf, size_t used, uint64_t total, block_fn fn)
{
    uint64_t bits = total * 8;

    buf[used++] = 0x80;
    if (used > 56) {
        memset(buf + used, 0, 64 - used);
        fn(h, buf);
        used = 0;
    }
    memset(buf + used, 0, 56 - used);
    put_be32(buf + 56, (uint32_t)(bits >> 32));
    put_be32(buf + 60, (uint32_t)bits);
    fn(h, buf);
}

void wb_sha256_init(struct wb_sha256 *c)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(c->h, iv, sizeof(iv));
    c->total = 0;
    c->used = 0;
}

void wb_sha256_update(struct wb_sha256 *c, const void *data, size_t len)
{
    md_update(c->h, c->buf, &c->used, &c->total, sha256_block, data, len);
}

void wb_sha256_final(struct wb_sha256 *c, unsigned char out[WB_SHA256_LEN])
{
    md_final(c->h, c->buf, c->used, c->total, sha256_block);
    for (int i = 0; i < 8; i++)
        put_be32(out + 4 * i, c->h[i]);
}

void wb_sha256(const void *data, size_t len, unsigned char out[WB_SHA256_LEN])
{
    struct wb_sha256 c;

    wb_sha256_init(&c);
    wb_sha256_update(&c, data, len);
    wb_sha256_final(&c, out);
}

void wb_sha1_init(struct wb_sha1 *c)
{
    static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    memcpy(c->h, iv, sizeof(iv));
    c->total = 0;
    c->used = 0;
}

void wb_sha1_update(struct wb_sha1 *c, const void *data, size_t len)
{
    md_update(c->h, c->buf, &c->used, &c->total, sha1_block, data, len);
}

void wb_sha1_final(struct wb_sha1 *c, unsigned char out[WB_SHA1_LEN])
{
    md_final(c->h, c->buf, c->used, c->total, sha1_block);
    for (int i = 0; i < 5; i++)
        put_be32(out + 4 * i, c->h[i]);
}

void wb_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

int wb_unhex(const char *in, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = rr_hexval(in[2 * i]), lo = hi < 0 ? -1 : rr_hexval(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return in[2 * n] == '\0';
}
