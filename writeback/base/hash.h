/* SHA-256 (the change set's content and manifest digests) and SHA-1 (only for
 * git's blob ids in the patch's index lines, which git apply needs to take a
 * binary patch). Written here from FIPS 180-4 so the stage needs no crypto
 * library; pinned by the standard test vectors in tests/test_wb_hash.c. */
#ifndef REVRUN_WB_HASH_H
#define REVRUN_WB_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_SHA256_LEN 32
#define WB_SHA256_HEX (WB_SHA256_LEN * 2 + 1)
#define WB_SHA1_LEN 20
#define WB_SHA1_HEX (WB_SHA1_LEN * 2 + 1)

struct wb_sha256 {
    uint32_t h[8];
    uint64_t total;
    unsigned char buf[64];
    size_t used;
};

struct wb_sha1 {
    uint32_t h[5];
    uint64_t total;
    unsigned char buf[64];
    size_t used;
};

void wb_sha256_init(struct wb_sha256 *c);
void wb_sha256_update(struct wb_sha256 *c, const void *data, size_t len);
void wb_sha256_final(struct wb_sha256 *c, unsigned char out[WB_SHA256_LEN]);
void wb_sha256(const void *data, size_t len, unsigned char out[WB_SHA256_LEN]);

void wb_sha1_init(struct wb_sha1 *c);
void wb_sha1_update(struct wb_sha1 *c, const void *data, size_t len);
void wb_sha1_final(struct wb_sha1 *c, unsigned char out[WB_SHA1_LEN]);

/* One block of SHA-256 rounds: portable C, or on the CPU's SHA extensions
 * (false, h untouched, when it has none). wb_sha256_* pick the CPU's when
 * it has them; both are here for the test that holds them to each other. */
void wb_sha256_block_portable(uint32_t h[8], const unsigned char *p);
bool wb_sha256_block_cpu(uint32_t h[8], const unsigned char *p);

/* Lower-case hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void wb_hex(const unsigned char *in, size_t n, char *out);

/* Parse exactly 2n hex digits (either case); false on anything else. */
int wb_unhex(const char *in, unsigned char *out, size_t n);

#endif
