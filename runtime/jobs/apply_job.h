/* `revrun apply`'s choices beyond the whole set onto files: the part of the
 * set to apply (--only/--exclude, writeback/changeset/subset.h) and the
 * commit instead of files (--commit, writeback/apply/gitcommit.h), with the
 * whole set's digest approved either way. */
#ifndef REVRUN_APPLY_JOB_H
#define REVRUN_APPLY_JOB_H

#include <stdbool.h>

#include "runtime/jobs/writeback_job.h"
#include "writeback/changeset/subset.h"

struct wb_apply_request {
    const char *approve; /* --approve */
    const char *target;  /* --to: TARGET, or with commit REPO */
    struct wb_subset_spec subset;
    bool commit;
    const char *branch, *author, *committer;
};

/* Check the approval, take the part, apply it as files or as a commit and
 * report; returns the exit status (WB_JOB_*). */
int wb_job_apply_request(struct rr_ctx *ctx, const struct wb_changeset *cs,
                         const unsigned char digest[WB_SHA256_LEN], const struct wb_source *src,
                         const struct wb_apply_request *req);

#endif
