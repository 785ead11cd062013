/* Before a review's agent runs: every library a stage after it loads with
 * dlopen (common/dlibs.h) is loaded now, so a host that lacks one fails
 * the job before the model call is spent, naming the package, instead of
 * after (vetting needs libgit2, the broker's TLS libssl, mounts libmount). */
#ifndef REVRUN_REVIEW_PREFLIGHT_H
#define REVRUN_REVIEW_PREFLIGHT_H

#include "bundle/config.h"
#include "common/error.h"

int review_preflight(const struct rr_config *cfg, struct rr_error *err);

#endif
