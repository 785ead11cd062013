/* The container's cgroup as the runc verbs use it: its members (ps, kill
 * --all), the freezer (pause, resume) and live limits (update).
 *
 * v2: cgroup.freeze and cgroup.events in the container's own cgroup.
 * v1: the freezer hierarchy is not one revrun creates at `create` (it
 * limits nothing); pause makes FREEZER/PATH, moves every member in and
 * freezes it; cgroup_remove thaws and removes it with the rest. */
#ifndef REVRUN_CGROUP_FREEZE_H
#define REVRUN_CGROUP_FREEZE_H

#include <stdbool.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/confine/cgroup.h"

/* A directory fd (O_RDONLY) of the container's cgroup where its member list
 * is: the v2 cgroup, or on v1 the first of memory, pids, cpu that has it.
 * -1 with errno ENOENT when there is none. */
int cgroup_members_dir(enum cg_version v, const char *path);

/* The pids listed in dirfd's cgroup.procs; *pids is malloc'd. At most max. */
int cgroup_read_procs(int dirfd, pid_t **pids, size_t *n, size_t max, struct rr_error *err);

/* Is the container's cgroup frozen (or freezing)? false when it has none. */
bool cgroup_frozen(enum cg_version v, const char *path);

/* Freeze (true) or thaw (false) the container's cgroup; waits until the
 * kernel says it is done (bounded). */
int cgroup_set_frozen(enum cg_version v, const char *path, bool frozen, struct rr_error *err);

/* v1: thaw and remove FREEZER/PATH if pause made it. */
void cgroup_freezer_v1_remove(const char *path);

/* Move pid into the container's cgroup in every hierarchy that has it (the
 * v1 freezer too, once a pause made it); none has it: nothing to do. */
int cgroup_join_existing(enum cg_version v, const char *path, pid_t pid, struct rr_error *err);

/* Write the limits r gives (RR_UNSET: leave as is) to the live cgroup. */
int cgroup_update(enum cg_version v, const char *path, const struct rr_resources *r,
                  struct rr_error *err);

/* --systemd-cgroup: "machine.slice:libpod:ID" -> the cgroupfs path systemd
 * would give it, "/machine.slice/libpod-ID.scope" (an empty slice is
 * system.slice). revrun writes that path itself; systemd's D-Bus is never
 * called. */
int cgroup_systemd_path(const char *spec, char *out, size_t len, struct rr_error *err);

#endif
