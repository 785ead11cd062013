#include "writeback/git/gitidx.h"

#include <string.h>

#define IDX_HEAD 8u
#define IDX_FANOUT (256u * 4u)
#define IDX_TRAILER (2u * WB_OID_LEN)

/* Where the tables start, for n objects (n < 2^32: no overflow in 64 bits). */
static uint64_t names_at(void)
{
    return IDX_HEAD + IDX_FANOUT;
}

static uint64_t off32_at(const struct wb_packidx *ix)
{
    return names_at() + (uint64_t)ix->n * (WB_OID_LEN + 4);
}

static uint64_t off64_at(const struct wb_packidx *ix)
{
    return off32_at(ix) + (uint64_t)ix->n * 4;
}

static const char *load_fanout(struct wb_packidx *ix)
{
    unsigned char raw[IDX_FANOUT];

    if (wb_span_read(&ix->f, IDX_HEAD, raw, sizeof(raw)) < 0)
        return "a pack index shorter than its fanout";
    for (unsigned i = 0; i < 256; i++) {
        ix->fanout[i] = wb_be32(raw + 4 * i);
        if (i > 0 && ix->fanout[i] < ix->fanout[i - 1])
            return "a pack index whose fanout decreases";
    }
    ix->n = ix->fanout[255];
    return NULL;
}

const char *wb_packidx_load(struct wb_packidx *ix, const struct wb_span *f)
{
    static const unsigned char magic[8] = {0xff, 't', 'O', 'c', 0, 0, 0, 2};
    unsigned char head[IDX_HEAD];
    const char *why;
    uint64_t min, extra;

    memset(ix, 0, sizeof(*ix));
    ix->f = *f;
    if (wb_span_read(f, 0, head, sizeof(head)) < 0 || memcmp(head, magic, 4) != 0)
        return "not a pack index";
    if (memcmp(head + 4, magic + 4, 4) != 0)
        return "a pack index of another version than 2";
    if ((why = load_fanout(ix)) != NULL)
        return why;
    min = off64_at(ix) + IDX_TRAILER;
    if (f->size < min)
        return "a pack index shorter than its fanout says";
    extra = f->size - min;
    if (extra % 8 != 0 || extra / 8 > ix->n)
        return "a pack index longer than its fanout says";
    ix->n_large = extra / 8;
    if (wb_span_read(f, f->size - IDX_TRAILER, ix->pack_sum, WB_OID_LEN) < 0)
        return "a pack index that cannot be read";
    return NULL;
}

/* The entry's offset once id is found at position i. */
static int entry_offset(const struct wb_packidx *ix, uint32_t i, uint64_t *off, const char **why)
{
    unsigned char b[8];
    uint32_t o;

    if (wb_span_read(&ix->f, off32_at(ix) + (uint64_t)i * 4, b, 4) < 0) {
        *why = "a pack index that cannot be read";
        return -1;
    }
    o = wb_be32(b);
    if (!(o & 0x80000000u)) {
        *off = o;
        return 1;
    }
    /* The high bit: the low 31 are a position in the 64-bit table. */
    if ((o & 0x7fffffffu) >= ix->n_large) {
        *why = "a pack index offset past its 64-bit table";
        return -1;
    }
    if (wb_span_read(&ix->f, off64_at(ix) + (uint64_t)(o & 0x7fffffffu) * 8, b, 8) < 0) {
        *why = "a pack index that cannot be read";
        return -1;
    }
    *off = wb_be64(b);
    return 1;
}

int wb_packidx_find(const struct wb_packidx *ix, const unsigned char id[WB_OID_LEN], uint64_t *off,
                    const char **why)
{
    uint32_t lo = id[0] == 0 ? 0 : ix->fanout[id[0] - 1], hi = ix->fanout[id[0]];
    unsigned char name[WB_OID_LEN];

    /* Halving [lo, hi) of at most 2^32 names: at most 32 reads. */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c;
        if (wb_span_read(&ix->f, names_at() + (uint64_t)mid * WB_OID_LEN, name, WB_OID_LEN) < 0) {
            *why = "a pack index that cannot be read";
            return -1;
        }
        if ((c = memcmp(id, name, WB_OID_LEN)) == 0)
            return entry_offset(ix, mid, off, why);
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return 0;
}
