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

/* An exported set (DIR, or a review's --out holding DIR/changeset,
 * changeset_dir.h): its manifest into cs (sorted), its digest recomputed,
 * rechecked against the rules apply keeps; *dfd the directory (close it).
 * -1 after reporting (cmd names the command). */
int wb_job_load_export(const char *cmd, const char *dir, struct wb_changeset *cs,
                       unsigned char digest[WB_SHA256_LEN], int *dfd);

/* The part of cs the patterns select (nothing to do when spec asks for
 * none), into *sub, and which changes of cs it leaves out (left[], cs->n
 * of them); WB_JOB_ACCEPT, or the status of a refusal after saying why. */
int wb_job_take_part(const struct wb_changeset *cs, const struct wb_subset_spec *spec,
                     struct wb_changeset *sub, bool *left);

/* Check the approval, take the part, apply it as files or as a commit and
 * report; returns the exit status (WB_JOB_*). */
int wb_job_apply_request(struct rr_ctx *ctx, const struct wb_changeset *cs,
                         const unsigned char digest[WB_SHA256_LEN], const struct wb_source *src,
                         const struct wb_apply_request *req);

#endif
