#include "writeback/git/gitpack.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/git/gitdelta.h"
#include "writeback/git/gitinflate.h"

#define PACK_HEAD 12u
#define PACK_TRAILER 20u
#define ENTRY_HEAD_MAX 32u /* a type/size of at most 9 bytes, then a base offset or id */
#define OBJ_OFS_DELTA 6
#define OBJ_REF_DELTA 7

/* One entry of a chain, from its header. */
struct link {
    size_t pack;
    uint64_t data; /* where its zlib stream starts */
    uint64_t size; /* declared: the object's, or the delta's own */
    int type;
};

const char *wb_pack_check(const struct wb_packidx *ix, const struct wb_span *pack)
{
    unsigned char head[PACK_HEAD], sum[PACK_TRAILER];
    uint32_t version;

    if (pack->size < PACK_HEAD + PACK_TRAILER || wb_span_read(pack, 0, head, sizeof(head)) < 0 ||
        memcmp(head, "PACK", 4) != 0)
        return "not a pack";
    version = wb_be32(head + 4);
    if (version != 2 && version != 3)
        return "a pack of another version than 2 or 3";
    if (wb_be32(head + 8) != ix->n)
        return "a pack holding another number of objects than its index";
    if (wb_span_read(pack, pack->size - PACK_TRAILER, sum, sizeof(sum)) < 0 ||
        memcmp(sum, ix->pack_sum, sizeof(sum)) != 0)
        return "a pack whose trailer is not the one its index records";
    return NULL;
}

/* The type and declared size: 3 bits of type and 4 of size, then 7 bits of
 * size a byte while the high bit is set. */
static const char *type_size(const unsigned char *h, size_t n, size_t *i, struct link *l)
{
    unsigned char c = h[(*i)++];
    unsigned shift = 4;

    l->type = (c >> 4) & 7;
    l->size = c & 15;
    while (c & 0x80) {
        if (*i == n || shift > 57)
            return "a pack entry header that cannot be read";
        c = h[(*i)++];
        l->size |= (uint64_t)(c & 0x7f) << shift;
        shift += 7;
    }
    if (l->type == 0 || l->type == 5)
        return "a pack entry of no known type";
    return NULL;
}

/* An OFS_DELTA's distance back to its base: git's encoding, where each
 * byte after the first adds one before shifting. */
static const char *ofs_base(const unsigned char *h, size_t n, size_t *i, uint64_t off,
                            uint64_t *base)
{
    unsigned char c;
    uint64_t d;

    if (*i == n)
        return "a pack entry header that cannot be read";
    c = h[(*i)++];
    d = c & 0x7f;
    while (c & 0x80) {
        if (*i == n || d > (UINT64_MAX >> 8))
            return "a pack entry header that cannot be read";
        c = h[(*i)++];
        d = ((d + 1) << 7) | (c & 0x7f);
    }
    /* Strictly before the delta: an OFS_DELTA chain only goes down the pack. */
    if (d == 0 || d > off - PACK_HEAD)
        return "a delta whose base lies outside the pack";
    *base = off - d;
    return NULL;
}

/* The header at off in pack pi into *l; a delta's base into *bid or *boff. */
static const char *read_header(struct wb_packset *s, size_t pi, uint64_t off, struct link *l,
                               unsigned char bid[WB_OID_LEN], uint64_t *boff)
{
    const struct wb_span *pk = &s->p[pi].pack;
    uint64_t end = pk->size - PACK_TRAILER; /* wb_pack_check: size >= header + trailer */
    unsigned char h[ENTRY_HEAD_MAX];
    const char *why;
    size_t n, i = 0;

    if (s->entries == WB_PACK_ENTRIES_MAX)
        return "more pack entries than one walk reads (4096)";
    s->entries++;
    if (off < PACK_HEAD || off >= end)
        return "a pack offset outside the pack";
    n = end - off < ENTRY_HEAD_MAX ? (size_t)(end - off) : ENTRY_HEAD_MAX;
    if (wb_span_read(pk, off, h, n) < 0)
        return "a pack that cannot be read";
    l->pack = pi;
    if ((why = type_size(h, n, &i, l)) != NULL)
        return why;
    if (l->type == OBJ_OFS_DELTA && (why = ofs_base(h, n, &i, off, boff)) != NULL)
        return why;
    if (l->type == OBJ_REF_DELTA) {
        if (n - i < WB_OID_LEN)
            return "a pack entry header that cannot be read";
        memcpy(bid, h + i, WB_OID_LEN);
        i += WB_OID_LEN;
    }
    l->data = off + i;
    return NULL;
}

/* id in the set, pack first first: 1, 0 (in none), -1 and *why. */
static int locate(struct wb_packset *s, const unsigned char id[WB_OID_LEN], size_t first,
                  size_t *pi, uint64_t *off, const char **why)
{
    for (size_t k = 0; k < s->n; k++) {
        size_t i = (first + k) % s->n;
        int r;
        if (s->lookups == WB_PACK_LOOKUPS_MAX) {
            *why = "more pack index lookups than one walk makes (8192)";
            return -1;
        }
        s->lookups++;
        r = wb_packidx_find(&s->p[i].ix, id, off, why);
        if (r != 0) {
            *pi = i;
            return r;
        }
    }
    return 0;
}

static bool spend(struct wb_packset *s, uint64_t bytes, const char **why)
{
    if (bytes > WB_PACK_BUDGET - s->spent) {
        *why = "more bytes than one walk reads and inflates in packs (64 MiB)";
        return false;
    }
    s->spent += bytes;
    return true;
}

/* The entry's inflated bytes, exactly its declared size, at most cap. */
static int inflate_entry(struct wb_packset *s, const struct link *l, size_t cap, char **out,
                         size_t *len, const char **why, struct rr_error *err)
{
    const struct wb_span *pk = &s->p[l->pack].pack;
    uint64_t room = pk->size - PACK_TRAILER - l->data;
    /* zlib's worst expansion is 5 bytes a 16 KiB block and 6 of framing. */
    uint64_t in = l->size + l->size / 64 + 1024;
    _cleanup_free_ unsigned char *z = NULL;
    int r;

    if (l->size > cap) {
        *why = "a pack entry declared over its cap (256 KiB a commit, 1 MiB a delta or a base)";
        return 0;
    }
    if (in > room)
        in = room;
    if (!spend(s, in + l->size, why))
        return 0;
    if ((z = malloc(in + 1)) == NULL)
        return rr_fail(err, ENOMEM, "pack");
    if (wb_span_read(pk, l->data, z, in) < 0) {
        *why = "a pack that cannot be read";
        return 0;
    }
    if ((r = wb_git_inflate(z, in, l->size, out, len, err)) < 0)
        return -1;
    if (r == 0 || *len != l->size) {
        if (r == 1) {
            free(*out);
            *out = NULL;
        }
        *why = "a pack entry that does not inflate to its declared size";
        return 0;
    }
    return 1;
}

/* The chain read from its top (chain[0], the object asked for) to its base
 * (chain[depth]): inflate the base, then apply each delta on the way up,
 * holding at most the current object, one delta and the next object. */
static int resolve(struct wb_packset *s, const struct link *chain, unsigned depth, size_t max,
                   char **out, size_t *len, const char **why, struct rr_error *err)
{
    _cleanup_free_ char *cur = NULL;
    size_t clen;
    int r;

    if ((r = inflate_entry(s, &chain[depth], depth == 0 ? max : WB_PACK_OBJ_MAX, &cur, &clen, why,
                           err)) <= 0)
        return r;
    for (unsigned i = depth; i-- > 0;) {
        _cleanup_free_ char *d = NULL;
        char *next = NULL;
        size_t dlen, nlen;
        if ((r = inflate_entry(s, &chain[i], WB_PACK_OBJ_MAX, &d, &dlen, why, err)) <= 0 ||
            (r = wb_git_delta_apply((const unsigned char *)cur, clen, (const unsigned char *)d,
                                    dlen, i == 0 ? max : WB_PACK_OBJ_MAX, &next, &nlen, why,
                                    err)) <= 0)
            return r;
        free(cur);
        cur = next;
        clen = nlen;
        if (!spend(s, nlen, why))
            return 0;
    }
    *out = rr_steal_ptr(&cur);
    *len = clen;
    return 1;
}

int wb_packset_read(struct wb_packset *s, const unsigned char id[WB_OID_LEN], size_t max,
                    enum wb_obj_type *type, char **out, size_t *len, const char **why,
                    struct rr_error *err)
{
    struct link chain[WB_PACK_DEPTH_MAX + 1];
    unsigned depth = 0;
    size_t pi = 0;
    uint64_t off;
    int r;

    *why = NULL;
    if ((r = locate(s, id, 0, &pi, &off, why)) <= 0)
        return 0;
    /* Headers only, down to the base: an explicit stack, capped. */
    for (;;) {
        unsigned char bid[WB_OID_LEN];
        if ((*why = read_header(s, pi, off, &chain[depth], bid, &off)) != NULL)
            return 0;
        if (chain[depth].type != OBJ_OFS_DELTA && chain[depth].type != OBJ_REF_DELTA)
            break;
        if (depth == WB_PACK_DEPTH_MAX) {
            *why = "a delta chain deeper than 50";
            return 0;
        }
        if (chain[depth].type == OBJ_REF_DELTA && (r = locate(s, bid, pi, &pi, &off, why)) <= 0) {
            if (r == 0)
                *why = "a delta whose base is in no pack read";
            return 0;
        }
        depth++;
    }
    if ((r = resolve(s, chain, depth, max, out, len, why, err)) <= 0)
        return r;
    *type = (enum wb_obj_type)chain[depth].type;
    return 1;
}
