/* review's part of the activity record: OUT/activity.jsonl, its summary at
 * the end of summary.txt and the "activity" member of report.json. Apart
 * from the review's own phases, so each can change without the other. */
#ifndef REVRUN_REVIEW_ACTIVITY_H
#define REVRUN_REVIEW_ACTIVITY_H

#include <stdbool.h>

#include "runtime/container/ctx.h"

/* Before the bundle is destroyed. Best effort, as the other results kept
 * from the state directory: a failure is logged and the review goes on. */
void review_keep_activity(const struct rr_ctx *ctx, const char *id, int out_fd);

#endif
