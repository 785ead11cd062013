/* linux.resources.cpu.cpus and .mems: the CPUs and memory nodes an engine
 * container's tasks may run on and allocate from (see cgroup_cpuset.c). */
#ifndef REVRUN_CGROUP_CPUSET_H
#define REVRUN_CGROUP_CPUSET_H

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/confine/cgroup.h"

/* Does the config ask for a cpuset? */
bool cgroup_cpuset_wanted(const struct rr_resources *r);

/* Write r's cpus and mems into cg's cgroup: v1, the cpuset hierarchy's
 * (made by cgroup_extra_make, filled with the parent's); v2, cg's own
 * directory, the cpuset controller enabled by cgroup_v2_create. Refused
 * with the reason where the host has no cpuset controller for it or the
 * kernel takes not the lists (outside the parent's, offline). */
int cgroup_cpuset_apply(const struct cgroup_host *h, const struct rr_resources *r,
                        const struct cgroup_plan *cg, struct rr_error *err);

#endif
