/* What review.c (the phases of revrun review) and review_outcome.c (what
 * is kept and reported at the end) share; included by those only. */
#ifndef REVRUN_REVIEW_INTERNAL_H
#define REVRUN_REVIEW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "bundle/config.h"
#include "bundle/preset.h"
#include "common/error.h"
#include "runtime/container/container.h"
#include "runtime/container/home_store.h"
#include "runtime/container/sync.h"
#include "runtime/jobs/review.h"
#include "runtime/jobs/review_log.h"
#include "runtime/jobs/review_notes.h"
#include "runtime/jobs/review_out.h"
#include "writeback/changeset/manifest.h"

struct review {
    const struct rr_ctx *ctx;
    const struct review_opts *o;
    struct rr_config cfg;
    struct rr_preset preset; /* --agent, or all zero */
    char id[RR_ID_MAX + 1];
    int out_fd;
    int log_fd;      /* OUT/agent.log */
    int sig_fd;      /* TERM/INT/HUP, blocked for the whole review */
    int interrupted; /* the first of them that came, or 0 */
    size_t log_used;
    struct timespec t0, t_run, t_vet, t_end;
    /* what happened */
    bool created;
    bool started; /* the agent's process was let run: a failure now is after it */
    int wait_status;
    bool timed_out;
    bool oom_killed;
    char backend[16]; /* the one the monitor chose (auto may fall back) */
    char exec_error[SYNC_TEXT_MAX];
    bool vetted;
    bool refused;
    size_t n_changes;
    char digest[80];
    struct wb_gitinfo git; /* taken from the vetted set, for result.json */
    struct wb_git_at base; /* the commit the set was made on ("" when none) */
    char setup_error[RR_ERROR_MSG_MAX + 128];
    struct rr_strv warnings;  /* revrun's own, for result.json */
    unsigned limits_skipped;  /* best-effort limits not enforced (CG_*) */
    uint64_t ns_refused; /* the agent's own sandbox, refused: how often */
    char ns_syscall[32];
    bool kept_artifacts;
    struct artifacts_report artifacts;
    char git_note[2304]; /* a worktree checkout: whether git works inside (create's line) */
    struct review_log log;     /* the phases on the job's log */
    struct review_notes notes; /* what state the agent left */
    struct review_out outdir;  /* OUT before the run, for the sudo hand-over */
};

/* review_outcome.c, in the order review_run calls them */
void review_read_exit_record(struct review *r);
int review_keep_artifacts(struct review *r, struct rr_error *err);
void review_artifacts_summary(struct review *r);
void review_ns_summary(const struct review *r);
void review_git_summary(const struct review *r);
void review_keep_egress_log(struct review *r);
int review_exit_code(const struct review *r);
int review_write_result(struct review *r, int code, struct rr_error *err);

#endif
