/* proc, mqueue and sysfs of a joined namespace the host's user namespace
 * owns (profile.h mount_plan.host_made), made by create on the host side. */
#ifndef REVRUN_ENGINE_HOSTFS_H
#define REVRUN_ENGINE_HOSTFS_H

#include "common/error.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/container/engine_pod.h"

/* For each host_made mount of p: a detached mount of its filesystem made
 * in the joined namespace of joins, put in fds[i] (the init attaches it as
 * a bind). Refused with the reason when the namespace cannot be entered or
 * the kernel refuses the mount. */
int engine_hostfs_make(const struct profile *p, const struct engine_joins *joins, int *fds,
                       struct rr_error *err);

#endif
