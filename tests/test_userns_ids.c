/* runtime/userns_ids.c: the ids a user namespace maps, and the one picked
 * for the container user where the dedicated host id is not mapped. */
#include <string.h>

#include "runtime/confine/profile/profile.h"
#include "runtime/confine/userns_ids.h"
#include "tests/tap.h"

static struct id_map m;

static bool parse(const char *text)
{
    struct rr_error err;
    return id_map_parse(text, &m, &err) == 0;
}

TEST(initial_namespace_maps_everything)
{
    uint32_t id = 0;

    CHECK(parse("         0          0 4294967295\n"));
    CHECK(id_map_is_initial(&m));
    CHECK(id_map_has(&m, PROFILE_DEFAULT_HOST_ID));
    CHECK(id_map_pick(&m, &id) && id == 4294967294u);
}

TEST(rootless_podman_picks_the_top_of_the_subordinate_range)
{
    uint32_t id = 0;

    CHECK(parse("0 1000 1\n1 100000 65536\n"));
    CHECK(!id_map_is_initial(&m));
    CHECK(!id_map_has(&m, PROFILE_DEFAULT_HOST_ID));
    CHECK(id_map_has(&m, 0) && id_map_has(&m, 65536) && !id_map_has(&m, 65537));
    CHECK(id_map_pick(&m, &id) && id == 65536);
}

TEST(pick_steps_over_nobody_and_root)
{
    uint32_t id = 0;

    CHECK(parse("0 100000 65535\n"));  /* 0..65534: the top is nobody */
    CHECK(id_map_pick(&m, &id) && id == 65533);
    CHECK(parse("0 1000 1\n"));        /* only root: nothing to pick */
    CHECK(!id_map_pick(&m, &id));
    CHECK(parse("0 1000 1\n65534 2000 1\n")); /* root and nobody only */
    CHECK(!id_map_pick(&m, &id));
}

TEST(junk_is_refused)
{
    CHECK(!parse("0 0\n"));
    CHECK(!parse("0 0 0\n"));            /* a zero count */
    CHECK(!parse("4294967295 0 2\n"));   /* past the 32-bit range */
    CHECK(!parse("0 0 1 junk\n"));
    CHECK(!parse("-1 0 1\n"));
    CHECK(parse(""));
    CHECK(m.n == 0);
}

TEST(describe_names_inside_and_outside)
{
    char buf[128];

    CHECK(parse("0 100000 65536\n"));
    id_map_describe(&m, buf, sizeof(buf));
    CHECK(strcmp(buf, "0-65535 (outside 100000-165535)") == 0);
}
