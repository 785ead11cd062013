/* bundle/size.c: parse_size, the sizes config.json takes as text. */
#include <stdint.h>
#include <string.h>

#include "bundle/config.h"
#include "tests/tap.h"

static bool size_is(const char *s, uint64_t want)
{
    uint64_t v = 12345;

    if (!parse_size(s, &v) || v != want) {
        tap_note("%s -> %llu", s, (unsigned long long)v);
        return false;
    }
    return true;
}

TEST(plain_bytes)
{
    CHECK(size_is("0", 0));
    CHECK(size_is("1", 1));
    CHECK(size_is("000123", 123));
    CHECK(size_is("18446744073709551615", UINT64_MAX));
}

TEST(binary_units_in_every_spelling)
{
    CHECK(size_is("1K", 1024) && size_is("1k", 1024) && size_is("1KB", 1024) &&
          size_is("1KiB", 1024));
    CHECK(size_is("2M", 2ULL << 20) && size_is("2m", 2ULL << 20) && size_is("2MiB", 2ULL << 20));
    CHECK(size_is("3G", 3ULL << 30) && size_is("3g", 3ULL << 30) && size_is("3GB", 3ULL << 30));
    CHECK(size_is("4T", 4ULL << 40) && size_is("4t", 4ULL << 40) && size_is("4TiB", 4ULL << 40));
    CHECK(size_is("0M", 0));
}

TEST(overflow_is_refused_not_clamped)
{
    uint64_t v = 7;

    CHECK(!parse_size("18446744073709551616", &v) && v == 7);
    CHECK(!parse_size("99999999999999999999999", &v));
    CHECK(size_is("17179869183G", 17179869183ULL << 30));
    CHECK(!parse_size("17179869184G", &v));
    CHECK(size_is("16777215T", 16777215ULL << 40));
    CHECK(!parse_size("16777216T", &v));
    CHECK(size_is("18014398509481983K", 18014398509481983ULL << 10));
    CHECK(!parse_size("18014398509481984K", &v) && v == 7);
}

TEST(junk_is_refused)
{
    static const char *const bad[] = {"",    "K",    "-1",  "+1",   " 1",        "1 ",
                                      "1 K", "1.5G", "1e3", "0x10", "1B",        "1iB",
                                      "1Ki", "1Kib", "1Kb", "1KBB", "1KiBx",     "1P",
                                      "1E",  "1Z",   "1kk", "1M\n", "1\xc2\xa0K"};
    uint64_t v = 7;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (!CHECK(!parse_size(bad[i], &v)))
            tap_note("accepted \"%s\"", bad[i]);
    CHECK(v == 7);
}
