/* The host's policy for engine configs (/etc/revrun/policy.json):
 *   {"engine": {"capabilities": ["CAP_CHOWN", ...],
 *               "noNewPrivileges": "force" | "config", ...}}
 * what an engine may have granted inside revrun's user namespace. Absent
 * file: the containerd/OCI default set, and no_new_privs forced. Names that
 * revrun never grants (CAP_SYS_ADMIN, ...) are refused in the file itself.
 * revrun's own bundles (spec, run --lower, review) read only its top-level
 * "hostIds": {"first": 2000000000, "count": 65536}, the host-wide range,
 * like a subordinate id range, from which each container gets a host uid
 * and gid of its own when revrun runs as root (idalloc.h). Absent: the
 * default below. */
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

/* One policy of the file: "engine" (the default) or a named one under
 * "policies", which an engine picks with the io.revrun.policy annotation:
 *   {"engine": {...}, "policies": {"review": {"capabilities": [...],
 *                                  "upperSize": "2G", "exportRoot": "/srv/x"}}}
 * A key "engine" omits takes revrun's default; a key a named policy omits
 * takes "engine"'s value (so naming a policy never widens what the file's
 * "engine" left out). Any tenant who may set annotations may name any
 * policy of the file: the widest one is the real bound for every tenant.
 * "checkoutOwners": [uid, ...]: the host uids an io.revrun.checkout source
 * may be owned by (its owner is idmapped to the container's user, so the
 * container reads what that uid may read there). Absent: any owner but
 * root; uid 0 or gid 0 is refused whatever the list says. */
#define RR_POLICY_EXPORT_ROOT "/var/lib/revrun/exports"
/* The kubelet's pods directory (its --root-dir, then pods/): the volumes it
 * makes for a pod's containers live below it. */
#define RR_POLICY_KUBELET_PODS "/var/lib/kubelet/pods"
#define RR_POLICY_UPPER_SIZE (1ULL << 30)
struct rr_policy {
    uint64_t caps;          /* what capabilities may be granted */
    uint64_t upper_size;    /* the most an io.revrun.checkout upper may hold */
    char export_root[4096]; /* where io.revrun.export names a directory */
    char kubelet_pods[4096]; /* "kubeletPodsDir": binds from below it are the kubelet's
                              * volumes, idmapped as the container's (profile/volumes.c) */
    bool nnp_as_config;     /* "noNewPrivileges": "config": the config's honoured
                             * (default "force": no_new_privs whatever it says) */
    bool activity_record;   /* "activity": "record": every exec of the container is
                             * recorded in its state directory (default "off") */
    char activity_root[4096]; /* "activityRoot": where finished records are kept as
                               * ID.jsonl, root's (an engine deletes the state
                               * directory when the container ends); "": not kept */
#define RR_POLICY_CHECKOUT_OWNERS_MAX 64
    uint32_t checkout_owners[RR_POLICY_CHECKOUT_OWNERS_MAX];
    size_t n_checkout_owners; /* 0: "checkoutOwners" absent: any but root */
};

/* name NULL: "engine" (the defaults when the file does not exist); a name
 * the file does not define is refused (ENOENT). */
int policy_load_named(const char *path, const char *name, struct rr_policy *out,
                      struct rr_error *err);

#define POLICY_HOST_IDS_FIRST 2000000000u
#define POLICY_HOST_IDS_COUNT 65536u
#define POLICY_HOST_IDS_FLOOR 65536u /* above real users and nobody (65534) */

struct rr_id_range {
    uint32_t first, count;
};

/* The file's hostIds (the default when the file or the key is absent); the
 * whole file is checked all the same. */
int policy_load_host_ids(const char *path, struct rr_id_range *r, struct rr_error *err);

/* "engineIds": {"first": 2100000000, "count": 268435456}: the host range
 * engine containers take blocks of POLICY_ENGINE_BLOCK ids from (one block
 * per container: its ids 0-65535), apart from hostIds (a file where the two
 * overlap is refused: a review's id would be an engine container's). count
 * is a whole number of blocks. */
#define POLICY_ENGINE_IDS_FIRST 2100000000u
#define POLICY_ENGINE_BLOCK 65536u
#define POLICY_ENGINE_IDS_COUNT (4096u * POLICY_ENGINE_BLOCK)
int policy_load_engine_ids(const char *path, struct rr_id_range *r, struct rr_error *err);

/* *allowed: the capability mask the policy allows (the default when the
 * file does not exist). */
int policy_load(const char *path, uint64_t *allowed, struct rr_error *err);

#endif
