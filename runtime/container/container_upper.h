/* The write-back stage's view of a live bundle: its lower, its upper and the
 * format its backend wrote, opened only once nothing in the container runs. */
#ifndef REVRUN_CONTAINER_UPPER_H
#define REVRUN_CONTAINER_UPPER_H

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/container/ctx.h"
#include "writeback/base/format.h"

struct container_upper {
    int lower_fd; /* O_PATH|O_DIRECTORY of the checkout */
    int upper_fd; /* O_PATH|O_DIRECTORY of the upper */
    int git_upper_fd; /* a worktree checkout's main git directory's upper, or -1: not shown */
    enum wb_format format;
    struct rr_writeback_policy policy; /* from the bundle's config.json */
};

/* Refuses (with a reason) while any process of the container still runs. */
int container_open_upper(const struct rr_ctx *ctx, const char *id, struct container_upper *out,
                         struct rr_error *err);

/* The HOME store's root (O_PATH), as the agent left it: hostile. Only once
 * the container has stopped. */
int container_open_home(const struct rr_ctx *ctx, const char *id, struct rr_error *err);

void container_upper_release(struct container_upper *cu);

#endif
