/* revrun review: the CI job (see review.c). */
#ifndef REVRUN_REVIEW_H
#define REVRUN_REVIEW_H

#include <stdint.h>

#include "runtime/container/ctx.h"
#include "runtime/jobs/review_log.h"
#include "bundle/spec.h"

/* The documented exit statuses of `revrun review`. */
enum {
    REVIEW_OK = 0,           /* the change set was accepted and exported, or there was no change */
    REVIEW_AGENT_FAILED = 1, /* the agent exited non-zero or was killed */
    REVIEW_REFUSED = 2,      /* the change set was refused (reasons in OUT/summary.txt) */
    REVIEW_SETUP_FAILED = 3, /* the sandbox could not be set up (or torn down) */
    REVIEW_TIMEOUT = 4,      /* the agent ran out of time and was killed */
};

struct review_opts {
    const char *lower;
    const char *out;
    const char *bundle; /* optional: its config.json instead of the default spec */
    const char *id;     /* optional */
    uint64_t timeout_s; /* 0: the config's */
    const char *agent;            /* --agent NAME|FILE, or NULL */
    const struct spec_opts *spec; /* binds, egress, env, HOME, artifacts; or NULL */
    char **cmd;
    int n_cmd;
    enum review_voice voice; /* the phases on stderr: text, none (--quiet), JSON (--json) */
};

int review_run(const struct rr_ctx *ctx, const struct review_opts *o);

#endif
