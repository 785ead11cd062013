/* The host's policy for engine configs (/etc/revrun/policy.json):
 *   {"engine": {"capabilities": ["CAP_CHOWN", ...],
 *               "noNewPrivileges": "force" | "config"}}
 * what an engine may have granted inside revrun's user namespace. Absent
 * file: the containerd/OCI default set, and no_new_privs forced. Names that
 * revrun never grants (CAP_SYS_ADMIN, ...) are refused in the file itself.
 * revrun's own bundles (spec, run --lower, review) never read it. */
#ifndef REVRUN_POLICY_H
#define REVRUN_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* CAP_* name -> number (0..63), or -1 when unknown. */
int rr_cap_by_name(const char *name);
const char *rr_cap_name(int cap);

/* Never granted, whatever a config or policy says. */
extern const uint64_t rr_caps_never;
/* The default set: what containerd and docker give a container. */
extern const uint64_t rr_caps_engine_default;

/* *allowed: the capability mask the policy allows (the default when the
 * file does not exist). */
int policy_load(const char *path, uint64_t *allowed, struct rr_error *err);

struct rr_engine_policy {
    uint64_t caps;      /* the capabilities an engine's container may hold */
    bool nnp_as_config; /* "config": process.noNewPrivileges honoured (default: forced on) */
};

/* The whole policy; the defaults when the file does not exist. */
int policy_load_engine(const char *path, struct rr_engine_policy *out, struct rr_error *err);

#endif
