/* libFuzzer harness for the pack reader (writeback/git/gitidx, gitpack,
 * gitdelta): the bytes the agent could leave in objects/pack, read the way
 * gitlog.c reads them. An input is a 4-byte little-endian length L, then an
 * index of L bytes (clamped to what there is), then a pack. Every object
 * the index names (the first 64) is read as a commit would be; then the
 * index bytes are applied as a delta to the pack bytes. Beyond what ASan
 * and UBSan catch, it aborts when:
 *   - a read succeeds with more bytes than its cap, or a type git has no
 *     object of;
 *   - a refusal comes with no reason for an object the index holds while
 *     the index is sorted and the name lies in its fanout bucket (a binary
 *     search cannot miss there);
 *   - the walk's budget, its entry count or its lookups pass their cap. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/git/gitdelta.h"
#include "writeback/git/gitidx.h"
#include "writeback/git/gitpack.h"

#define COMMIT_MAX (256u << 10) /* WB_COMMIT_MAX (gitlog.h, which needs libgit2) */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "gitpack_fuzz: %s\n", what);
        abort();
    }
}

/* Are the index's names in strictly increasing order? */
static int sorted(const struct wb_packidx *ix)
{
    unsigned char a[WB_OID_LEN], b[WB_OID_LEN];

    for (uint32_t i = 0; i + 1 < ix->n && i < 64; i++) {
        if (wb_span_read(&ix->f, 8 + 1024 + (uint64_t)i * WB_OID_LEN, a, WB_OID_LEN) < 0 ||
            wb_span_read(&ix->f, 8 + 1024 + (uint64_t)(i + 1) * WB_OID_LEN, b, WB_OID_LEN) < 0 ||
            memcmp(a, b, WB_OID_LEN) >= 0)
            return 0;
    }
    return ix->n <= 64;
}

static void read_all(struct wb_packset *s, const struct wb_packidx *ix)
{
    int ordered = sorted(ix);

    for (uint32_t i = 0; i < ix->n && i < 64; i++) {
        unsigned char id[WB_OID_LEN];
        enum wb_obj_type type = 0;
        struct rr_error err;
        const char *why = NULL;
        char *out = NULL;
        size_t len = 0;
        int r;
        if (wb_span_read(&ix->f, 8 + 1024 + (uint64_t)i * WB_OID_LEN, id, WB_OID_LEN) < 0)
            return;
        r = wb_packset_read(s, id, COMMIT_MAX, &type, &out, &len, &why, &err);
        must(r >= 0, "an error where only a refusal can be (no ENOMEM here)");
        if (r == 1) {
            must(len <= COMMIT_MAX, "a result over its cap");
            must(type >= WB_OBJ_COMMIT && type <= WB_OBJ_TAG, "a result of no object type");
            must(out != NULL && out[len] == '\0', "a result not NUL-terminated");
        } else {
            must(out == NULL, "a refusal that hands out a buffer");
            /* a name in its fanout bucket of a sorted index cannot be missed */
            must(why != NULL || !ordered || i < (id[0] ? ix->fanout[id[0] - 1] : 0) ||
                     i >= ix->fanout[id[0]],
                 "a held object refused with no reason");
        }
        free(out);
        must(s->spent <= WB_PACK_BUDGET, "the walk's budget passed");
        must(s->entries <= WB_PACK_ENTRIES_MAX, "the walk's entry cap passed");
        must(s->lookups <= WB_PACK_LOOKUPS_MAX, "the walk's lookup cap passed");
    }
}

static void delta(const uint8_t *base, size_t blen, const uint8_t *d, size_t dlen)
{
    struct rr_error err;
    const char *why = NULL;
    char *out = NULL;
    size_t len = 0;
    int r = wb_git_delta_apply(base, blen, d, dlen, COMMIT_MAX, &out, &len, &why, &err);

    must(r == 1 ? len <= COMMIT_MAX && out != NULL : why != NULL && out == NULL,
         "a delta result over its cap, or a refusal without a reason");
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct wb_pack p;
    struct wb_packset s;
    struct wb_span is, ps;
    size_t ilen;

    if (size < 4)
        return 0;
    ilen = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    if (ilen > size - 4)
        ilen = size - 4;
    is = (struct wb_span){.fd = -1, .buf = data + 4, .size = ilen};
    ps = (struct wb_span){.fd = -1, .buf = data + 4 + ilen, .size = size - 4 - ilen};
    if (wb_packidx_load(&p.ix, &is) == NULL && wb_pack_check(&p.ix, &ps) == NULL) {
        p.pack = ps;
        s = (struct wb_packset){.p = &p, .n = 1};
        read_all(&s, &p.ix);
    }
    delta(data + 4 + ilen, size - 4 - ilen, data + 4, ilen);
    return 0;
}
