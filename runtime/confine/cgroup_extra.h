/* An engine container in every cgroup hierarchy the host mounts (see
 * cgroup_extra.c): made at create, joined with the rest, removed with it. */
#ifndef REVRUN_CGROUP_EXTRA_H
#define REVRUN_CGROUP_EXTRA_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

/* HIER/path in each hierarchy cgroup.c and cgroup_devices.c do not use
 * (hybrid: the unified v2 one too); the leaf must be new (EEXIST: another
 * container's; what this call made is removed again). */
int cgroup_extra_make(bool hybrid, const char *path, struct rr_error *err);

/* pid into each HIER/path that exists. */
int cgroup_extra_join(bool hybrid, const char *path, pid_t pid, struct rr_error *err);

/* Kill what is left in each HIER/path and remove it; missing is success. */
void cgroup_extra_remove(bool hybrid, const char *path);

#endif
