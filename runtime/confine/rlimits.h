/* process.rlimits against what the caller can give: the container's pid 1
 * (in a user namespace) can lower a hard limit, never raise one, so a hard
 * limit above the caller's would fail in the agent's process with nothing
 * to say. Judged in the CLI before anything exists. */
#ifndef REVRUN_RLIMITS_H
#define REVRUN_RLIMITS_H

#include "common/error.h"
#include "runtime/confine/profile/profile.h"

/* Open files revrun itself needs to build a container (its fds, the
 * monitor's, the helpers'): below this, create refuses up front rather than
 * fail half way on EMFILE. */
#define RLIMITS_REVRUN_NOFILE 64

/* Raise this process's soft RLIMIT_NOFILE to its hard one (inherited by the
 * monitor), then refuse with the limit and the remedy when a config's hard
 * limit is above the caller's, or when fewer than RLIMITS_REVRUN_NOFILE
 * files may be open. */
int rlimits_judge_caller(const struct profile *p, struct rr_error *err);

#endif
