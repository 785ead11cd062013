/* An engine container's host ids (review2 F5): a block of its own from the
 * policy's engineIds (idalloc), and its user namespace owned by the
 * container root's host uid, not by root, so the per-user counts the kernel
 * charges to a namespace's owner (inotify instances and watches, user
 * namespaces, mqueue bytes) spend neither root's budget nor another
 * container's.
 * Engine mode has no monitor to hold the block: create holds it while it
 * runs and records the container's init with it before it ends; then that
 * process holds it for as long as it lives, and the state directory where
 * it is visible (a reclaimer frees only blocks whose init is gone and whose
 * state directory is gone); delete releases it (container_release_ids),
 * sweep and a create finding the range full reclaim a crashed one's. */
#ifndef REVRUN_ENGINE_IDS_H
#define REVRUN_ENGINE_IDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"

struct engine_ids {
    bool taken;
    uint32_t base; /* the block's first host id (taken), or the range's first */
    int held;      /* its record's fd (shared flock) while create runs */
    bool claim;    /* a pod's block joined: held is the claim's fd */
    const char *cid;
};

/* As root, for a config without uid or gid mappings: take a block for
 * root/cid (root: the state root's real path). Otherwise ids->base is the
 * range's first and nothing is taken. */
int engine_ids_take(const struct rr_config *cfg, bool rootless, const char *policy_file,
                    const char *root, const char *cid, struct engine_ids *ids,
                    struct rr_error *err);

/* A container joining a pod whose user namespace (userns_fd) has the id
 * map uid_map: when that map is a block of engineIds, the container is
 * made a holder of it (idalloc_join), refused when revrun does not hold
 * it for the pod; a map meeting hostIds is refused; any other (an
 * engine's own mappings) is no block of revrun's. */
int engine_ids_join(const struct rr_id_mapping *uid_map, size_t n, int userns_fd,
                    const char *policy_file, const char *root, const char *cid,
                    struct engine_ids *ids, struct rr_error *err);

/* The container's init, pid in this pid namespace, holds the block from
 * now on (nothing taken: nothing to do). */
int engine_ids_hold(const struct engine_ids *ids, pid_t init, struct rr_error *err);

/* create failed: the block goes back (when create succeeded: just close). */
void engine_ids_drop(struct engine_ids *ids);
void engine_ids_close(struct engine_ids *ids);

/* clone(flags) with the new user namespace owned by host uid owner (kept
 * root's capabilities and fsuid: SECBIT_NO_SETUID_FIXUP, put back in the
 * child at once); root (rootless: the caller) when owner is 0. */
pid_t engine_clone_owned(unsigned flags, uid_t owner);

#endif
