/* OCI hooks, run as runc runs them: the engine's programs, with the
 * container's state JSON on stdin, only the hook's own environment, a
 * timeout (SIGKILL when it passes), and their output kept (bounded) for the
 * error. prestart, createRuntime, poststart and poststop run on the host
 * side; createContainer and startContainer in the container's namespaces
 * (the caller is already there). */
#ifndef REVRUN_HOOKS_H
#define REVRUN_HOOKS_H

#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"

/* The state document a hook reads. */
int hooks_state_json(const char *id, const char *status, pid_t pid, const char *bundle,
                     const struct rr_strv *annotations, char **out, struct rr_error *err);

/* Run cfg's hooks of one kind in order; the first failure stops them and is
 * returned. */
int hooks_run(const struct rr_config *cfg, enum rr_hook_kind kind, const char *state_json,
              struct rr_error *err);

/* poststart and poststop: every hook runs; each failure is a warning (the
 * runtime spec's rule: the lifecycle goes on as if it had succeeded).
 * Returns how many failed. */
int hooks_run_warn(const struct rr_config *cfg, enum rr_hook_kind kind, const char *state_json);

#endif
