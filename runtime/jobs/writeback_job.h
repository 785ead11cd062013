/* The write-back orchestration the commands and the review job share:
 * open the source of an upper (a live bundle's ID, or a bare lower/upper
 * pair from any overlay user), vet it, and apply a vetted change set onto a
 * TARGET through the apply journal. */
#ifndef REVRUN_WRITEBACK_JOB_H
#define REVRUN_WRITEBACK_JOB_H

#include <stdbool.h>

#include "common/exitcode.h"
#include "runtime/container/container_upper.h"
#include "runtime/container/ctx.h"
#include "writeback/apply/apply.h"
#include "writeback/base/deny.h"
#include "writeback/scan/scan.h"

/* Exit statuses of the write-back commands (common/exitcode.h). */
enum {
    WB_JOB_ACCEPT = RR_EXIT_OK,
    WB_JOB_ERROR = RR_EXIT_ERROR,
    WB_JOB_USAGE = RR_EXIT_USAGE,
    WB_JOB_REFUSED = RR_EXIT_REFUSED,
    WB_JOB_CONFLICT = RR_EXIT_CONFLICT,
    WB_JOB_DIGEST = RR_EXIT_DIGEST,
};

/* The pair's paths and format name, and the --deny-content file. */
struct wb_job_source {
    const char *lower, *upper, *format, *deny;
};

struct wb_job {
    struct container_upper cu;
    struct wb_deny deny;
    struct wb_scan scan;
    bool scanned;
};

/* Open the source (id, or the pair when id is NULL) and vet it. Returns 0,
 * or the exit status after reporting the error. */
int wb_job_vet(struct rr_ctx *ctx, const char *cmd, const struct wb_job_source *o, const char *id,
               struct wb_job *run);
void wb_job_release(struct wb_job *run);

/* Print the reasons of a refused set to stderr (escaped). */
void wb_job_print_refusal(const struct wb_changeset *cs);

/* Check that approve is digest, then apply cs from src onto target and
 * report; returns the exit status. An earlier apply onto target that died
 * mid-commit is rolled back first (apply_journal.h). */
int wb_job_apply(struct rr_ctx *ctx, const struct wb_changeset *cs,
                 const unsigned char digest[WB_SHA256_LEN], const char *approve,
                 const struct wb_source *src, const char *target);

#endif
