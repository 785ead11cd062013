#include "writeback/git/gitindex.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 12u       /* "DIRC", version, entry count */
#define TRAILER 20u   /* the SHA-1 checksum (not checked: gitindex.h) */
#define FIXED 62u     /* an entry's stat data, object id and flags */
#define MIN_ENTRY 64u /* the smallest entry of any version: FIXED, a 1-byte path, its end */
#define F_EXTENDED 0x4000u
#define F_NAMEMASK 0x0fffu

/* A path in the file (v2, v3: every entry) or in the arena (v4: one per
 * WB_GITINDEX_RESTART entries). Offsets fit: the file is under 4 GiB. */
struct span {
    uint32_t off, len;
};

struct wb_gitindex {
    char *buf;
    size_t len;
    bool v4;
    size_t n;           /* entries */
    struct span *rst;   /* v2, v3: n of them, into buf; v4: one per block, into arena */
    size_t n_rst;
    uint32_t *v4off;    /* v4: where entry i's strip count starts in buf */
    char *arena;        /* v4: the restart paths */
    size_t arena_len, arena_cap;
};

static uint32_t be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static unsigned be16(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (unsigned)u[0] << 8 | u[1];
}

/* git's order: bytes, then the shorter first. */
static int cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);

    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen;
}

/* git's offset varint (varint.c): 7 bits a byte, high bit "more", each
 * continuation adding one. Anything above max is refused as it is read, so
 * it never overflows. Returns the bytes used, 0 when not readable. */
static size_t varint(const char *p, size_t avail, size_t max, size_t *out)
{
    size_t i = 0, v;
    unsigned char c;

    if (avail == 0)
        return 0;
    c = (unsigned char)p[i++];
    v = c & 127u;
    while (c & 128u) {
        if (i == avail || v + 1 > max >> 7)
            return 0;
        c = (unsigned char)p[i++];
        v = ((v + 1) << 7) + (c & 127u);
    }
    if (v > max)
        return 0;
    *out = v;
    return i;
}

__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t why_len,
                                                         const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return 0;
}

static int keep_restart(struct wb_gitindex *ix, const char *path, size_t len, struct rr_error *err)
{
    if (ix->arena_len + len > ix->arena_cap) {
        size_t ncap = ix->arena_cap ? ix->arena_cap * 2 : 4 * WB_GITINDEX_PATH_MAX;
        char *nv;
        while (ncap < ix->arena_len + len)
            ncap *= 2;
        if ((nv = realloc(ix->arena, ncap)) == NULL)
            return rr_fail(err, ENOMEM, "git index");
        ix->arena = nv;
        ix->arena_cap = ncap;
    }
    memcpy(ix->arena + ix->arena_len, path, len);
    ix->rst[ix->n_rst++] = (struct span){(uint32_t)ix->arena_len, (uint32_t)len};
    ix->arena_len += len;
    return 0;
}

/* The entries, from pos; *end_pos where the extensions start. cur holds the
 * previous path (v4 builds on it; the order check compares with it). */
static int parse_entries(struct wb_gitindex *ix, unsigned version, size_t end, size_t *end_pos,
                         char *why, size_t why_len, struct rr_error *err)
{
    char cur[WB_GITINDEX_PATH_MAX];
    const char *prev = cur;
    size_t pos = HDR, prevlen = 0;

    for (size_t i = 0; i < ix->n; i++) {
        size_t hdr = FIXED, name, nl;
        unsigned flags;
        if (end - pos < FIXED)
            return refuse(why, why_len, "entry %zu of %zu runs past the end", i, ix->n);
        flags = be16(ix->buf + pos + 60);
        if (flags & F_EXTENDED) {
            if (version < 3)
                return refuse(why, why_len, "entry %zu of %zu has extended flags in a version 2 "
                              "index", i, ix->n);
            hdr += 2;
            if (end - pos < hdr)
                return refuse(why, why_len, "entry %zu of %zu runs past the end", i, ix->n);
        }
        name = pos + hdr;
        if (!ix->v4) {
            const char *z;
            nl = flags & F_NAMEMASK;
            if (nl < F_NAMEMASK) {
                /* the path, then at least one NUL */
                if (nl >= end - name || memchr(ix->buf + name, '\0', nl) != NULL ||
                    ix->buf[name + nl] != '\0')
                    return refuse(why, why_len, "entry %zu of %zu: a path of the wrong length",
                                  i, ix->n);
            } else {
                /* 4095 bytes or more: the length is where the NUL is */
                size_t look = end - name < WB_GITINDEX_PATH_MAX + 1 ? end - name
                                                                   : WB_GITINDEX_PATH_MAX + 1;
                if ((z = memchr(ix->buf + name, '\0', look)) == NULL)
                    return refuse(why, why_len,
                                  "entry %zu of %zu: a path over %u bytes or past the end", i,
                                  ix->n, WB_GITINDEX_PATH_MAX);
                nl = (size_t)(z - (ix->buf + name));
            }
            if (nl == 0 || ((hdr + nl + 8) & ~(size_t)7) > end - pos)
                return refuse(why, why_len, "entry %zu of %zu: an empty path or past the end", i,
                              ix->n);
            if (i > 0 && cmp(ix->buf + name, nl, prev, prevlen) < 0)
                return refuse(why, why_len, "entry %zu of %zu is out of order", i, ix->n);
            ix->rst[ix->n_rst++] = (struct span){(uint32_t)name, (uint32_t)nl};
            prev = ix->buf + name;
            prevlen = nl;
            pos += (hdr + nl + 8) & ~(size_t)7; /* padded with 1 to 8 NULs */
        } else {
            size_t strip, used, keep, sl;
            const char *suffix, *z;
            if ((used = varint(ix->buf + name, end - name, prevlen, &strip)) == 0)
                return refuse(why, why_len,
                              "entry %zu of %zu strips more than the previous path holds", i,
                              ix->n);
            suffix = ix->buf + name + used;
            keep = prevlen - strip;
            if ((z = memchr(suffix, '\0', end - name - used)) == NULL)
                return refuse(why, why_len, "entry %zu of %zu runs past the end", i, ix->n);
            sl = (size_t)(z - suffix);
            if (keep + sl == 0 || keep + sl > WB_GITINDEX_PATH_MAX)
                return refuse(why, why_len, "entry %zu of %zu: an empty path or one over %u "
                              "bytes", i, ix->n, WB_GITINDEX_PATH_MAX);
            /* Only the part after the shared prefix can be out of order. */
            if (i > 0 && cmp(suffix, sl, cur + keep, prevlen - keep) < 0)
                return refuse(why, why_len, "entry %zu of %zu is out of order", i, ix->n);
            memcpy(cur + keep, suffix, sl);
            prevlen = keep + sl;
            ix->v4off[i] = (uint32_t)name;
            if (i % WB_GITINDEX_RESTART == 0 && keep_restart(ix, cur, prevlen, err) < 0)
                return -1;
            pos = (size_t)(z - ix->buf) + 1;
        }
    }
    *end_pos = pos;
    return 1;
}

int wb_gitindex_parse(char *buf, size_t len, struct wb_gitindex **out, char *why, size_t why_len,
                      struct rr_error *err)
{
    struct wb_gitindex *ix;
    unsigned version;
    size_t end, pos, n;
    int r;

    why[0] = '\0';
    if (len < HDR + TRAILER || memcmp(buf, "DIRC", 4) != 0) {
        free(buf);
        return refuse(why, why_len, "not an index (%zu bytes, no DIRC header)", len);
    }
    version = be32(buf + 4);
    n = be32(buf + 8);
    end = len - TRAILER;
    if (len > UINT32_MAX || version < 2 || version > 4 || n > (end - HDR) / MIN_ENTRY) {
        free(buf);
        if (version < 2 || version > 4)
            return refuse(why, why_len, "index version %u (revrun reads 2 to 4)", version);
        return refuse(why, why_len, "%zu entries: more than %zu bytes can hold (or over 4 GiB)",
                      n, len);
    }
    if ((ix = calloc(1, sizeof(*ix))) == NULL) {
        free(buf);
        return rr_fail(err, ENOMEM, "git index");
    }
    ix->buf = buf;
    ix->len = len;
    ix->n = n;
    ix->v4 = version == 4;
    if (n > 0 && ((ix->rst = calloc(ix->v4 ? n / WB_GITINDEX_RESTART + 1 : n, sizeof(*ix->rst))) ==
                      NULL ||
                  (ix->v4 && (ix->v4off = calloc(n, sizeof(*ix->v4off))) == NULL))) {
        wb_gitindex_free(ix);
        return rr_fail(err, ENOMEM, "git index");
    }
    if ((r = parse_entries(ix, version, end, &pos, why, why_len, err)) <= 0) {
        wb_gitindex_free(ix);
        return r;
    }
    /* Extensions: a signature and a size each, skipped unread. */
    while (pos < end) {
        uint32_t sz;
        if (end - pos < 8 || (sz = be32(buf + pos + 4)) > end - pos - 8) {
            wb_gitindex_free(ix);
            return refuse(why, why_len, "an extension at byte %zu runs past the end", pos);
        }
        pos += 8 + (size_t)sz;
    }
    *out = ix;
    return 1;
}

/* Entry i's path (v4: decoded from the restart point before it into tmp,
 * which holds entry i-1's when i is not one: decoding runs forward). */
static void v4_next(const struct wb_gitindex *ix, size_t i, char *tmp, size_t *len)
{
    const char *p = ix->buf + ix->v4off[i];
    size_t strip = 0, used = varint(p, ix->len - ix->v4off[i], *len, &strip);
    const char *suffix = p + used;
    size_t sl = strlen(suffix); /* checked by the parse: NUL-terminated, fits */

    memcpy(tmp + (*len - strip), suffix, sl);
    *len = *len - strip + sl;
}

static const char *rst_path(const struct wb_gitindex *ix, size_t r)
{
    return (ix->v4 ? ix->arena : ix->buf) + ix->rst[r].off;
}

/* The first entry whose path is not before q (git's order): into *p, *plen
 * (tmp holds it for v4). false when every entry is before q. */
static bool lower_bound(const struct wb_gitindex *ix, const char *q, size_t qlen, char *tmp,
                        const char **p, size_t *plen)
{
    size_t lo = 0, hi = ix->n_rst, k = ix->v4 ? WB_GITINDEX_RESTART : 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(rst_path(ix, mid), ix->rst[mid].len, q, qlen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Restart lo is the first not before q; the answer is it, or an entry of
     * the block before it. */
    if (lo > 0 && k > 1) {
        size_t first = (lo - 1) * k, last = lo * k < ix->n ? lo * k : ix->n;
        size_t len = ix->rst[lo - 1].len;
        memcpy(tmp, rst_path(ix, lo - 1), len);
        for (size_t i = first + 1; i < last; i++) {
            v4_next(ix, i, tmp, &len);
            if (cmp(tmp, len, q, qlen) >= 0) {
                *p = tmp;
                *plen = len;
                return true;
            }
        }
    }
    if (lo == ix->n_rst)
        return false;
    *p = rst_path(ix, lo);
    *plen = ix->rst[lo].len;
    return true;
}

bool wb_gitindex_has(const struct wb_gitindex *ix, const char *path, size_t len)
{
    char tmp[WB_GITINDEX_PATH_MAX];
    const char *p;
    size_t plen;

    if (ix == NULL || len == 0 || len > WB_GITINDEX_PATH_MAX)
        return false;
    return lower_bound(ix, path, len, tmp, &p, &plen) && cmp(p, plen, path, len) == 0;
}

bool wb_gitindex_has_below(const struct wb_gitindex *ix, const char *dir, size_t len)
{
    char tmp[WB_GITINDEX_PATH_MAX], q[WB_GITINDEX_PATH_MAX];
    const char *p;
    size_t plen;

    if (ix == NULL || len == 0 || len >= WB_GITINDEX_PATH_MAX)
        return false;
    memcpy(q, dir, len);
    q[len++] = '/';
    /* Sorted: what lies below dir/ starts at the first entry not before it
     * (a sparse index's "dir/" entry stands for its tree: it counts). */
    return lower_bound(ix, q, len, tmp, &p, &plen) && plen >= len && memcmp(p, q, len) == 0;
}

size_t wb_gitindex_count(const struct wb_gitindex *ix)
{
    return ix ? ix->n : 0;
}

void wb_gitindex_free(struct wb_gitindex *ix)
{
    if (ix == NULL)
        return;
    free(ix->buf);
    free(ix->rst);
    free(ix->v4off);
    free(ix->arena);
    free(ix);
}
