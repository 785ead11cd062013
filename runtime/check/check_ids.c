/* `revrun check`: the host id range each container takes its own host
 * uid/gid from (as root), and how much of it is free. */
#include <stdint.h>

#include "bundle/policy.h"
#include "runtime/check/check.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/confine/userns_ids.h"
#include "runtime/container/idalloc.h"

void check_host_ids(struct check_report *r)
{
    static const char *const remedy =
        "destroy containers, `revrun sweep` to free the ids of crashed runs, or widen hostIds "
        "in " PROFILE_POLICY_FILE;
    struct rr_id_range ids;
    struct rr_error err = {0};
    uint32_t last;
    long held;

    if (r->rootless)
        return; /* the container user is the caller, always */
    if (policy_load_host_ids(PROFILE_POLICY_FILE, &ids, &err) < 0) {
        check_add(r, CHECK_FAIL, true, "host ids", "fix " PROFILE_POLICY_FILE, "%s", err.msg);
        return;
    }
    last = ids.first + (ids.count - 1);
    if (r->facts.in_userns) {
        struct id_map m;
        if (id_map_read_self(true, &m, &err) < 0 ||
            !id_map_covers(&m, ids.first, ids.count)) {
            check_add(r, CHECK_INFO, false, "host ids", NULL,
                      "this user namespace does not map the range %u-%u: containers share "
                      "one mapped id here",
                      ids.first, last);
            return;
        }
    }
    if ((held = idalloc_in_use(&ids, &err)) < 0) {
        check_add(r, CHECK_FAIL, true, "host ids", NULL, "%s", err.msg);
        return;
    }
    if ((uint64_t)held >= ids.count) {
        check_add(r, CHECK_FAIL, true, "host ids", remedy,
                  "all %u ids of the range %u-%u are held: the next create is refused",
                  ids.count, ids.first, last);
        return;
    }
    check_add(r, CHECK_OK, true, "host ids", NULL,
              "a host uid/gid of its own per container: range %u-%u, %ld of %u held (%s)",
              ids.first, last, held, ids.count, IDALLOC_DIR);
}
