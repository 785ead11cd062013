/* `revrun diff` output: for a person (every byte of a name or target that is
 * not printable escaped, so a name cannot drive the terminal) or as one JSON
 * object. Both end with / hold the digest the operator approves. The CLI
 * hands in the stream; nothing here picks one. */
#ifndef REVRUN_WB_REPORT_H
#define REVRUN_WB_REPORT_H

#include <stdio.h>

#include "writeback/changeset/changeset.h"

int wb_report_text(FILE *out, const struct wb_changeset *cs, struct rr_error *err);
/* The same in two parts, so `review` can say above the verdict what state
 * the agent left: everything but the verdict, then the verdict and digest
 * (a refused set's digest labelled as not approvable). */
int wb_report_text_body(FILE *out, const struct wb_changeset *cs, struct rr_error *err);
int wb_report_text_verdict(FILE *out, const struct wb_changeset *cs, struct rr_error *err);
int wb_report_json(FILE *out, const struct wb_changeset *cs, struct rr_error *err);

/* The "git" member (ignored paths, the agent's .git churn and commits) of a
 * report or result object; nothing when the checkout is not a repository. */
struct json_writer;
void wb_report_git_json(struct json_writer *w, const struct wb_gitinfo *gi);

#endif
