/* revrun review: the CI job (see review.c). */
#ifndef REVRUN_REVIEW_H
#define REVRUN_REVIEW_H

#include <stdint.h>

#include "common/exitcode.h"
#include "runtime/container/ctx.h"
#include "runtime/jobs/review_log.h"
#include "bundle/spec.h"

/* The exit statuses of `revrun review` (common/exitcode.h). */
enum {
    REVIEW_OK = RR_EXIT_OK,               /* accepted and exported, or there was no change */
    REVIEW_AGENT_FAILED = RR_EXIT_ERROR,  /* the agent exited non-zero, was killed, cancelled */
    REVIEW_USAGE = RR_EXIT_USAGE,         /* a bad command line */
    REVIEW_SETUP_FAILED = RR_EXIT_SETUP,  /* no sandbox: the agent was not started */
    REVIEW_TIMEOUT = RR_EXIT_TIMEOUT,     /* the agent ran out of time and was killed */
    REVIEW_REFUSED = RR_EXIT_REFUSED,     /* the change set was refused (OUT/summary.txt) */
    REVIEW_AFTER_AGENT = RR_EXIT_AFTER_AGENT, /* the agent ran; vetting, export or teardown failed */
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
