#include <stdio.h>
#include <string.h>

#include "tests/tap.h"
#include "writeback/base/hash.h"

static const char *sha256_hex(const char *s, size_t len)
{
    static char hex[WB_SHA256_HEX];
    unsigned char d[WB_SHA256_LEN];

    wb_sha256(s, len, d);
    wb_hex(d, sizeof(d), hex);
    return hex;
}

static const char *sha1_hex(const char *s, size_t len)
{
    static char hex[WB_SHA1_HEX];
    unsigned char d[WB_SHA1_LEN];
    struct wb_sha1 c;

    wb_sha1_init(&c);
    wb_sha1_update(&c, s, len);
    wb_sha1_final(&c, d);
    wb_hex(d, sizeof(d), hex);
    return hex;
}

/* FIPS 180-4 / NIST CAVS vectors, including the two-block padding edge. */
TEST(sha256_vectors)
{
    const char *abc56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

    CHECK(strcmp(sha256_hex("", 0),
                 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    CHECK(strcmp(sha256_hex("abc", 3),
                 "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    CHECK(strcmp(sha256_hex(abc56, strlen(abc56)),
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
}

TEST(sha256_million_a_streamed)
{
    struct wb_sha256 c;
    unsigned char d[WB_SHA256_LEN];
    char chunk[1001], hex[WB_SHA256_HEX];

    memset(chunk, 'a', sizeof(chunk));
    wb_sha256_init(&c);
    for (int i = 0; i < 1000; i++)
        wb_sha256_update(&c, chunk, i % 2 ? 999 : 1001); /* odd splits cross blocks */
    wb_sha256_final(&c, d);
    wb_hex(d, sizeof(d), hex);
    CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
}

/* The CPU's rounds (SHA-NI) and the portable ones agree on every block and
 * state, so a digest never depends on the machine that made it; the
 * vectors above pin whichever this CPU runs. */
TEST(sha256_cpu_rounds_match_the_portable_ones)
{
    uint32_t x = 0x9e3779b9, a[8], b[8];
    unsigned char block[64];
    bool cpu = true;

    for (int n = 0; n < 2000 && cpu; n++) {
        for (int i = 0; i < 8; i++)
            a[i] = b[i] = (x = x * 1664525u + 1013904223u);
        for (int i = 0; i < 64; i++)
            block[i] = (unsigned char)((x = x * 1664525u + 1013904223u) >> 24);
        if (n % 3 == 0)
            memset(block, n % 2 ? 0xff : 0, sizeof(block)); /* all-ones and all-zero blocks */
        wb_sha256_block_portable(a, block);
        cpu = wb_sha256_block_cpu(b, block);
        CHECK(!cpu || memcmp(a, b, sizeof(a)) == 0);
    }
    if (!cpu)
        printf("# this CPU has no SHA extensions: only the portable rounds ran\n");
}

TEST(sha1_vectors)
{
    CHECK(strcmp(sha1_hex("abc", 3), "a9993e364706816aba3e25717850c26c9cd0d89d") == 0);
    CHECK(strcmp(sha1_hex("", 0), "da39a3ee5e6b4b0d3255bfef95601890afd80709") == 0);
    /* git's id of the empty blob: sha1("blob 0\0") */
    CHECK(strcmp(sha1_hex("blob 0", 7), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") == 0);
}

TEST(unhex_is_strict)
{
    unsigned char b[2];

    CHECK(wb_unhex("aB0f", b, 2) && b[0] == 0xab && b[1] == 0x0f);
    CHECK(!wb_unhex("aB0", b, 2));
    CHECK(!wb_unhex("aB0fe", b, 2));
    CHECK(!wb_unhex("zz00", b, 2));
}
