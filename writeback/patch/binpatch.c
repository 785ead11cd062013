#include "writeback/patch/binpatch.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STORED_MAX 65535u

unsigned char *wb_zlib_stored(const unsigned char *data, size_t len, size_t *zlen)
{
    size_t blocks = len / STORED_MAX + 1, n = 2 + blocks * 5 + len + 4, o = 0;
    unsigned char *z = malloc(n);
    uint32_t s1 = 1, s2 = 0;

    if (z == NULL)
        return NULL;
    z[o++] = 0x78; /* deflate, 32K window */
    z[o++] = 0x01; /* no preset dictionary, fastest; 0x7801 % 31 == 0 */
    for (size_t off = 0;;) {
        size_t chunk = len - off > STORED_MAX ? STORED_MAX : len - off;
        bool last = off + chunk == len;
        z[o++] = last ? 1 : 0; /* BFINAL, BTYPE 00: stored */
        z[o++] = (unsigned char)(chunk & 0xff);
        z[o++] = (unsigned char)(chunk >> 8);
        z[o++] = (unsigned char)(~chunk & 0xff);
        z[o++] = (unsigned char)((~chunk >> 8) & 0xff);
        memcpy(z + o, data + off, chunk);
        o += chunk;
        off += chunk;
        if (last)
            break;
    }
    for (size_t i = 0; i < len; i++) { /* adler32, big-endian at the end */
        s1 = (s1 + data[i]) % 65521;
        s2 = (s2 + s1) % 65521;
    }
    z[o++] = (unsigned char)(s2 >> 8);
    z[o++] = (unsigned char)s2;
    z[o++] = (unsigned char)(s1 >> 8);
    z[o++] = (unsigned char)s1;
    *zlen = o;
    return z;
}

void wb_base85_line(const unsigned char *data, size_t len, char *out)
{
    static const char a85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                              "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
    size_t o = 0;

    out[o++] = len <= 26 ? (char)('A' + len - 1) : (char)('a' + len - 27);
    for (size_t i = 0; i < len; i += 4) {
        uint32_t acc = 0;
        for (size_t k = 0; k < 4; k++)
            acc = acc << 8 | (i + k < len ? data[i + k] : 0);
        for (int k = 4; k >= 0; k--) {
            out[o + (size_t)k] = a85[acc % 85];
            acc /= 85;
        }
        o += 5;
    }
    out[o] = '\0';
}

int wb_binpatch_literal(FILE *out, const unsigned char *data, size_t len, struct rr_error *err)
{
    size_t zlen;
    unsigned char *z = wb_zlib_stored(data, len, &zlen);
    char line[80];

    if (z == NULL)
        return rr_fail(err, ENOMEM, "binary patch");
    fprintf(out, "literal %zu\n", len);
    for (size_t i = 0; i < zlen; i += 52) {
        wb_base85_line(z + i, zlen - i < 52 ? zlen - i : 52, line);
        fprintf(out, "%s\n", line);
    }
    fputc('\n', out);
    free(z);
    return 0;
}

/* The literal's zlib stream, cut into base85 lines of 52 bytes as it goes. */
struct lit {
    FILE *out;
    unsigned char line[52];
    size_t n;
    uint32_t s1, s2; /* adler32 */
};

static void lit_put(struct lit *l, const unsigned char *p, size_t len)
{
    char text[80];

    while (len > 0) {
        size_t take = sizeof(l->line) - l->n < len ? sizeof(l->line) - l->n : len;
        memcpy(l->line + l->n, p, take);
        l->n += take;
        p += take;
        len -= take;
        if (l->n == sizeof(l->line)) {
            wb_base85_line(l->line, l->n, text);
            fprintf(l->out, "%s\n", text);
            l->n = 0;
        }
    }
}

static void lit_data(struct lit *l, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        l->s1 = (l->s1 + p[i]) % 65521;
        l->s2 = (l->s2 + l->s1) % 65521;
    }
    lit_put(l, p, len);
}

int wb_binpatch_literal_from(FILE *out, uint64_t len, wb_binpatch_read_fn rd, void *ctx,
                             struct rr_error *err)
{
    static const unsigned char zhead[2] = {0x78, 0x01};
    struct lit l = {.out = out, .s1 = 1};
    unsigned char buf[16384], tail[4];
    char text[80];
    uint64_t off = 0;

    fprintf(out, "literal %ju\n", (uintmax_t)len);
    lit_put(&l, zhead, sizeof(zhead));
    do {
        uint64_t chunk = len - off > STORED_MAX ? STORED_MAX : len - off;
        unsigned char hdr[5] = {off + chunk == len ? 1 : 0, (unsigned char)(chunk & 0xff),
                                (unsigned char)(chunk >> 8), (unsigned char)(~chunk & 0xff),
                                (unsigned char)((~chunk >> 8) & 0xff)};
        lit_put(&l, hdr, sizeof(hdr));
        for (uint64_t done = 0; done < chunk;) {
            size_t n = chunk - done < sizeof(buf) ? (size_t)(chunk - done) : sizeof(buf);
            if (rd(ctx, off + done, buf, n, err) < 0)
                return -1;
            lit_data(&l, buf, n);
            done += n;
        }
        off += chunk;
    } while (off < len);
    tail[0] = (unsigned char)(l.s2 >> 8);
    tail[1] = (unsigned char)l.s2;
    tail[2] = (unsigned char)(l.s1 >> 8);
    tail[3] = (unsigned char)l.s1;
    lit_put(&l, tail, sizeof(tail));
    if (l.n > 0) {
        wb_base85_line(l.line, l.n, text);
        fprintf(out, "%s\n", text);
    }
    fputc('\n', out);
    return 0;
}
