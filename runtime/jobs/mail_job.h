/* The mail of a change set (writeback/patch/mbox.h) on stdout: the commit
 * `apply --commit` would write, for `git am` on any clone at the base.
 * From an export (`export DIR --format mbox`: the export's blobs hold both
 * sides) or from a live set (`diff --mbox`: the lower and the upper). The
 * author is --author, else the operator's git identity; never the agent. */
#ifndef REVRUN_MAIL_JOB_H
#define REVRUN_MAIL_JOB_H

#include "writeback/changeset/subset.h"
#include "writeback/scan/scan.h"

/* Returns the exit status (WB_JOB_*). */
int wb_job_mail_export(const char *dir, const char *author, const struct wb_subset_spec *part);
int wb_job_mail_live(const struct wb_scan *s, const char *author);

#endif
