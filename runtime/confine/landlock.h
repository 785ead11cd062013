/* Landlock (Linux 5.13+): the second filesystem layer, under the mounts. The
 * profile says what the agent may write (profile/landlock.c,
 * pf_judge_landlock); this module turns that into a ruleset with every access right the running
 * kernel's ABI knows handled, so what no rule grants is denied. The ruleset
 * is built by the container's pid 1 inside the new root and enforced by the
 * agent's process just before seccomp and exec. */
#ifndef REVRUN_LANDLOCK_H
#define REVRUN_LANDLOCK_H

#include <stddef.h>

#include "common/error.h"
#include "runtime/confine/profile/profile.h"

/* The Landlock ABI version this kernel offers; 0 without Landlock (not built
 * in, or not in the boot's lsm= list). */
int landlock_abi(void);

/* At create, before anything runs: refuse a profile that requires Landlock
 * on a host without it. A best-effort profile gets a warning in warning
 * (empty when there is nothing to say). */
int landlock_judge_host(const struct profile *p, char *warning, size_t len, struct rr_error *err);

/* pid 1, after the pivot: build the ruleset. *ruleset_fd is -1 when the
 * profile does not use Landlock or (best-effort) the kernel has none. */
int landlock_prepare(const struct profile *p, int *ruleset_fd, struct rr_error *err);

/* The agent's process: restrict itself (no_new_privs is already set). A
 * ruleset_fd of -1 is a no-op. Returns -1 with errno. */
int landlock_enforce(int ruleset_fd);

/* A host-side helper (the egress broker): from now on it may read files
 * and list directories beneath paths (a missing one is skipped) and write
 * nothing through a path (the fds it holds keep working); abstract unix
 * sockets and signals outside its domain are out of reach (ABI 6+).
 * Returns 1 when enforced, 0 when the kernel has no Landlock. */
int landlock_read_only(const char *const *paths, size_t n, struct rr_error *err);

#endif
