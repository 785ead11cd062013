#include "writeback/git/gitdelta.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A size: 7 bits a byte, least significant first, at most 64 bits. */
static int delta_size(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    unsigned shift = 0;

    *v = 0;
    for (;;) {
        if (*p == end || shift > 63)
            return -1;
        unsigned char c = *(*p)++;
        if (shift == 63 && (c & 0x7e))
            return -1; /* bits past 64 */
        *v |= (uint64_t)(c & 0x7f) << shift;
        shift += 7;
        if (!(c & 0x80))
            return 0;
    }
}

/* A copy instruction's offset and size: the op's low 4 bits say which
 * offset bytes follow, the next 3 which size bytes; size 0 means 0x10000. */
static int copy_args(unsigned char op, const unsigned char **p, const unsigned char *end,
                     uint64_t *off, uint64_t *size)
{
    *off = 0;
    *size = 0;
    for (unsigned i = 0; i < 7; i++) {
        if (!(op & (1u << i)))
            continue;
        if (*p == end)
            return -1;
        if (i < 4)
            *off |= (uint64_t)*(*p)++ << (8 * i);
        else
            *size |= (uint64_t)*(*p)++ << (8 * (i - 4));
    }
    if (*size == 0)
        *size = 0x10000;
    return 0;
}

static const char *run(const unsigned char *base, size_t blen, const unsigned char *p,
                       const unsigned char *end, char *out, uint64_t rlen)
{
    uint64_t at = 0;

    while (p < end) {
        unsigned char op = *p++;
        uint64_t off, size;
        if (op & 0x80) {
            if (copy_args(op, &p, end, &off, &size) < 0)
                return "a delta cut inside a copy";
            if (off > blen || size > blen - off)
                return "a delta copying from past its base";
        } else if (op == 0) {
            return "a delta with the reserved instruction 0";
        } else {
            size = op;
            if (size > (uint64_t)(end - p))
                return "a delta cut inside an insert";
        }
        if (size > rlen - at)
            return "a delta writing past its declared result";
        memcpy(out + at, (op & 0x80) ? base + off : p, (size_t)size);
        if (!(op & 0x80))
            p += size;
        at += size;
    }
    return at == rlen ? NULL : "a delta shorter than its declared result";
}

int wb_git_delta_apply(const unsigned char *base, size_t blen, const unsigned char *delta,
                       size_t dlen, size_t max, char **out, size_t *outlen, const char **why,
                       struct rr_error *err)
{
    const unsigned char *p = delta, *end = delta + dlen;
    uint64_t bsize, rsize;
    char *buf;

    if (delta_size(&p, end, &bsize) < 0 || delta_size(&p, end, &rsize) < 0) {
        *why = "a delta whose sizes cannot be read";
        return 0;
    }
    if (bsize != blen) {
        *why = "a delta for a base of another size";
        return 0;
    }
    if (rsize > max) {
        *why = "a delta whose result is over the cap";
        return 0;
    }
    if ((buf = malloc((size_t)rsize + 1)) == NULL)
        return rr_fail(err, ENOMEM, "delta");
    if ((*why = run(base, blen, p, end, buf, rsize)) != NULL) {
        free(buf);
        return 0;
    }
    buf[rsize] = '\0';
    *out = buf;
    *outlen = (size_t)rsize;
    return 1;
}
