/* The host's policy (/etc/revrun/policy.json):
 *   {"engine": {"capabilities": ["CAP_CHOWN", ...]},
 *    "hostIds": {"first": 2000000000, "count": 65536}}
 * engine.capabilities: what an engine may have granted inside revrun's user
 * namespace. Absent: the containerd/OCI default set. Names that revrun
 * never grants (CAP_SYS_ADMIN, ...) are refused in the file itself.
 * hostIds: the range, like a subordinate id range, from which each
 * container of revrun's own profile gets a host uid and gid of its own when
 * revrun runs as root (idalloc.h). Absent: the default below. */
#ifndef REVRUN_POLICY_H
#define REVRUN_POLICY_H

#include <stdint.h>

#include "common/error.h"

/* CAP_* name -> number (0..63), or -1 when unknown. */
int rr_cap_by_name(const char *name);
const char *rr_cap_name(int cap);

/* Never granted, whatever a config or policy says. */
extern const uint64_t rr_caps_never;
/* The default set: what containerd and docker give a container. */
extern const uint64_t rr_caps_engine_default;

#define POLICY_HOST_IDS_FIRST 2000000000u
#define POLICY_HOST_IDS_COUNT 65536u
#define POLICY_HOST_IDS_FLOOR 65536u

struct rr_id_range {
    uint32_t first, count;
};

struct rr_policy {
    uint64_t caps;
    struct rr_id_range host_ids;
};

/* The whole policy (the defaults when the file does not exist). */
int policy_load_all(const char *path, struct rr_policy *pol, struct rr_error *err);

/* *allowed: the capability mask the policy allows (the default when the
 * file does not exist). */
int policy_load(const char *path, uint64_t *allowed, struct rr_error *err);

#endif
