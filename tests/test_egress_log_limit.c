/* The bound on the broker's request log (egress/log_limit.c). */
#include <string.h>

#include "egress/log_limit.h"
#include "tests/tap.h"

#define MS 1000000ULL

TEST(a_burst_passes_then_lines_are_dropped_and_counted)
{
    struct eg_log_limit l;
    char note[200];
    int passed = 0;

    eg_log_limit_init(&l, 1 << 20, 10, 5);
    for (int i = 0; i < 1000; i++)
        passed += eg_log_limit_admit(&l, 0, 50, note, sizeof(note));
    CHECK(passed == 10);
    /* a second later, 5 more credits; the first line to pass says how many
     * were dropped */
    CHECK(eg_log_limit_admit(&l, 1000 * MS, 50, note, sizeof(note)));
    CHECK(strstr(note, "990 request lines dropped") != NULL);
    CHECK(eg_log_limit_admit(&l, 1000 * MS, 50, note, sizeof(note)));
    CHECK(note[0] == '\0');
    eg_log_limit_summary(&l, note, sizeof(note));
    CHECK(strstr(note, "990 request lines dropped in all") != NULL);
}

TEST(the_rate_is_steady_over_time)
{
    struct eg_log_limit l;
    char note[200];
    int passed = 0;

    eg_log_limit_init(&l, 1ULL << 40, 20, 20);
    /* 10 s of one line every millisecond: the burst, then 20 a second */
    for (uint64_t t = 0; t < 10000; t++)
        passed += eg_log_limit_admit(&l, t * MS, 40, note, sizeof(note));
    CHECK(passed >= 20 + 199 && passed <= 20 + 201);
}

TEST(the_log_stops_at_max_bytes_with_one_line_saying_so)
{
    struct eg_log_limit l;
    char note[200];
    uint64_t bytes = 0;
    int fulls = 0;

    eg_log_limit_init(&l, 10000, 1000000, 1000000);
    for (uint64_t i = 0; i < 100000; i++) {
        bool ok = eg_log_limit_admit(&l, i * MS, 100, note, sizeof(note));
        bytes += strlen(note) + (ok ? 100 : 0);
        fulls += strstr(note, "bytes reached") != NULL;
    }
    eg_log_limit_summary(&l, note, sizeof(note));
    bytes += strlen(note);
    CHECK(fulls == 1);
    CHECK(bytes <= 10000);
    CHECK(bytes == l.written);
    CHECK(strstr(note, "dropped in all") != NULL);
}

TEST(nothing_dropped_says_nothing)
{
    struct eg_log_limit l;
    char note[200];

    eg_log_limit_init(&l, EG_LOG_MAX_BYTES, EG_LOG_BURST, EG_LOG_PER_SEC);
    CHECK(eg_log_limit_admit(&l, 5 * MS, 60, note, sizeof(note)));
    CHECK(note[0] == '\0');
    eg_log_limit_summary(&l, note, sizeof(note));
    CHECK(note[0] == '\0');
}
