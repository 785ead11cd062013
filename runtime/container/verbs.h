/* The runc verbs that act on a container's processes and cgroup: ps,
 * kill --all, pause, resume, update. Each takes the container's lock and
 * judges its status first, with runc's words for the refusals. */
#ifndef REVRUN_VERBS_H
#define REVRUN_VERBS_H

#include <stdbool.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "bundle/state.h"
#include "common/error.h"
#include "runtime/container/ctx.h"

/* kill --all, on a container already opened (lifecycle.c). */
int container_signal_all(const struct rr_state *s, int sig, struct rr_error *err);

/* The host pids of the container's processes, ascending (*pids malloc'd;
 * empty for a stopped container). */
int container_pids(const struct rr_ctx *ctx, const char *id, pid_t **pids, size_t *n,
                   struct rr_error *err);

/* pause (freeze) or resume (thaw). */
int container_pause(const struct rr_ctx *ctx, const char *id, bool pause, struct rr_error *err);

/* New limits (RR_UNSET: unchanged), judged by profile_judge_update. */
int container_update(const struct rr_ctx *ctx, const char *id, const struct rr_resources *r,
                     struct rr_error *err);

#endif
