/* SipHash-2-4 (Aumasson and Bernstein), incremental: the patch compares
 * lines by a keyed 64-bit hash, so the agent, who does not know the key,
 * cannot make two different lines compare equal (an unkeyed hash would let
 * it hide a change as an unchanged line). */
#ifndef REVRUN_WB_SIPHASH_H
#define REVRUN_WB_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

struct wb_siphash {
    uint64_t v[4];
    uint64_t m;     /* the bytes of the word being filled */
    unsigned mlen;  /* how many */
    uint64_t total; /* bytes so far */
};

void wb_siphash_init(struct wb_siphash *s, const uint64_t key[2]);
void wb_siphash_update(struct wb_siphash *s, const void *data, size_t len);
uint64_t wb_siphash_final(const struct wb_siphash *s);

#endif
