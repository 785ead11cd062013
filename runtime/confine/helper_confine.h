/* Confining revrun's own host-side helpers: the egress broker and the
 * fuse-overlayfs daemon. They run outside the container, so the container's
 * confinement does not reach them; each drops to the container user's host
 * identity (as root) with no capability, no_new_privs and revrun's seccomp
 * floor, in the order below (the kernel's order: identity, then capabilities,
 * then no_new_privs, which seccomp needs). */
#ifndef REVRUN_HELPER_CONFINE_H
#define REVRUN_HELPER_CONFINE_H

#include <linux/filter.h>
#include <sys/types.h>

#include "common/error.h"

/* /dev/null on stdin and stdout, log_fd on stderr: a helper must not hold
 * the caller's stdio (a `review` or a piped `create` waits for its EOF). */
int helper_stdio(int log_fd, struct rr_error *err);

/* uid/gid in the caller's user namespace (as root: the container user's
 * host ids, which own nothing; rootless: 0, the monitor's own, kept).
 * Supplementary groups cleared, every capability set emptied (bounding and
 * ambient too), no_new_privs. The error names the failing step. */
int helper_drop_identity(uid_t uid, gid_t gid, struct rr_error *err);

/* Load one compiled filter (no_new_privs must be set). NULL: refused, since
 * a helper without its floor must not run. */
int helper_load_seccomp(const struct sock_fprog *prog, struct rr_error *err);

#endif
