#include "runtime/jobs/writeback_job.h"

#include "common/crashpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "runtime/jobs/apply_journal.h"
#include "runtime/container/log.h"
#include "writeback/changeset/manifest.h"
#include "writeback/changeset/report.h"
#include "writeback/apply/journal.h"
#include "writeback/git/gitbase.h"
#include "writeback/rules/rules.h"

static bool parse_format(const char *s, enum wb_format *f)
{
    static const struct {
        const char *name;
        enum wb_format f;
    } names[] = {{"overlay", WB_FORMAT_OVERLAY},
                 {"overlay-userxattr", WB_FORMAT_OVERLAY_USERXATTR},
                 {"fuse-overlayfs", WB_FORMAT_FUSE_OVERLAYFS}};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(s, names[i].name) == 0) {
            *f = names[i].f;
            return true;
        }
    return false;
}

/* The pair: both directories opened once, by the operator's paths. */
static int open_pair(const struct wb_job_source *o, struct container_upper *cu, struct rr_error *err)
{
    if (!parse_format(o->format, &cu->format))
        return rr_fail(err, EINVAL,
                       "--format %s: expected overlay, overlay-userxattr or "
                       "fuse-overlayfs",
                       o->format);
    cu->lower_fd = open(o->lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cu->lower_fd < 0)
        return rr_fail(err, errno, "--lower %s", o->lower);
    cu->upper_fd = open(o->upper, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cu->upper_fd < 0)
        return rr_fail(err, errno, "--upper %s", o->upper);
    return writeback_policy_defaults(&cu->policy, err);
}

int wb_job_vet(struct rr_ctx *ctx, const char *cmd, const struct wb_job_source *o, const char *id,
               struct wb_job *run)
{
    struct wb_scan_input in;
    struct rr_error err;
    int r;

    *run = (struct wb_job){.cu = {.lower_fd = -1, .upper_fd = -1, .git_upper_fd = -1}};
    if (o->deny && wb_deny_load(o->deny, &run->deny, &err) < 0) {
        rr_wrap(&err, "%s: --deny-content", cmd);
        log_error(&err);
        return WB_JOB_ERROR;
    }
    r = id ? container_open_upper(ctx, id, &run->cu, &err) : open_pair(o, &run->cu, &err);
    if (r < 0) {
        rr_wrap(&err, "%s", cmd);
        log_error(&err);
        return WB_JOB_ERROR;
    }
    in = (struct wb_scan_input){.lower_fd = run->cu.lower_fd,
                                .upper_fd = run->cu.upper_fd,
                                .format = run->cu.format,
                                .pol = &run->cu.policy,
                                .deny = o->deny ? &run->deny : NULL,
                                .has_git_upper = run->cu.git_upper_fd >= 0,
                                .git_upper_fd = run->cu.git_upper_fd};
    run->scanned = true;
    crash_point("diff:opened");
    /* the container's id names the review the set comes from (its digest
     * binds it: the branch `apply --commit` makes is named after it) */
    if (wb_vet(&in, &run->scan, &err) < 0 ||
        (id && wb_origin_set_review(&run->scan.cs.origin, id, &err) < 0)) {
        rr_wrap(&err, "%s: vetting the upper", cmd);
        log_error(&err);
        return WB_JOB_ERROR;
    }
    return 0;
}

void wb_job_release(struct wb_job *run)
{
    if (run->scanned)
        wb_scan_free(&run->scan);
    container_upper_release(&run->cu);
    wb_deny_free(&run->deny);
}

void wb_job_print_refusal(const struct wb_changeset *cs)
{
    struct rr_error err;

    fflush(stdout);
    if (wb_report_text(stderr, cs, &err) < 0)
        log_error(&err);
}

static void print_conflicts(const struct wb_notes *n)
{
    for (size_t i = 0; i < n->n; i++) {
        char *p = rr_escape_dup(n->v[i].path, n->v[i].path_len);
        log_msg(LOG_ERROR, "apply: conflict: %s: %s", p ? p : "?", n->v[i].detail);
        free(p);
    }
}

/* Roll back what an apply onto this TARGET left when it died. */
static int recover(const struct apply_journal *j, int tfd)
{
    struct wb_recovery rec;
    struct rr_error err;

    if (wb_journal_recover(j->fd, tfd, &rec, &err) < 0) {
        log_error(&err);
        log_msg(LOG_ERROR, "apply: an earlier apply onto TARGET died mid-commit and could not be "
                           "rolled back: nothing applied");
        return -1;
    }
    if (rec.found && rec.committed)
        log_msg(LOG_WARN, "apply: an earlier apply onto TARGET had completed before it died; "
                          "its stage is removed");
    else if (rec.found)
        log_msg(LOG_WARN,
                "apply: an earlier apply onto TARGET died mid-commit; rolled back its %zu "
                "steps",
                rec.undone);
    return 0;
}

static void report(int r, const struct wb_apply_result *res, const struct rr_error *err)
{
    if (r == 1) {
        print_conflicts(&res->conflicts);
        log_msg(LOG_ERROR, "apply: TARGET no longer holds the base of %zu path%s: nothing applied",
                res->conflicts.n, res->conflicts.n == 1 ? "" : "s");
    } else if (r < 0) {
        log_error(err);
        if (res->restore_failed)
            log_msg(LOG_ERROR,
                    "apply: TARGET could NOT be fully restored; what was moved aside "
                    "is in TARGET/%s, and the next apply or `revrun sweep` retries",
                    res->stage);
        else
            log_msg(LOG_ERROR, "apply: TARGET was restored to what it was: nothing applied");
    } else if (res->already_applied) {
        log_msg(LOG_WARN, "apply: already applied: TARGET holds this change set's result; "
                          "nothing written");
    } else if (res->stage[0] != '\0') {
        log_msg(LOG_WARN, "apply: applied, but TARGET/%s could not be removed (sweep will)",
                res->stage);
    }
}

/* Which commit the set was made on, beside the commit TARGET is at: after
 * a refusal always, after an apply when they differ (every path the set
 * touches held its base all the same). */
static void base_note(const struct wb_changeset *cs, int tfd, bool refused)
{
    const struct wb_git_at *base = &cs->origin.base;
    struct wb_git_at at;
    struct rr_error err;
    char why[256];
    int r;

    if (!wb_origin_has_base(&cs->origin))
        return;
    r = wb_git_base(tfd, &at, why, sizeof(why), &err);
    if (r == 1 && strcmp(at.commit, base->commit) == 0)
        return;
    if (r == 1)
        log_msg(refused ? LOG_ERROR : LOG_WARN, "apply: the set was made on commit %s; TARGET is "
                "at commit %s%s", base->commit, at.commit,
                refused ? "" : " (every path the set touches held its base there)");
    else
        log_msg(refused ? LOG_ERROR : LOG_WARN, "apply: the set was made on commit %s; TARGET "
                "is at no commit revrun could read", base->commit);
}

int wb_job_apply(struct rr_ctx *ctx, const struct wb_changeset *cs,
                 const unsigned char digest[WB_SHA256_LEN], const char *approve,
                 const struct wb_source *src, const char *target)
{
    unsigned char want[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX];
    _cleanup_free_ char *abs = NULL;
    _cleanup_close_ int tfd = -1;
    struct apply_journal j = {.dir = -1, .fd = -1};
    struct wb_apply_result res;
    struct rr_error err;
    int r = -1;

    wb_hex(digest, WB_SHA256_LEN, hex);
    if (!wb_digest_parse(approve, want) || memcmp(want, digest, WB_SHA256_LEN) != 0) {
        log_msg(LOG_ERROR,
                "apply: --approve is not the digest of this change set (%s): "
                "nothing applied",
                hex);
        return WB_JOB_DIGEST;
    }
    /* The journal records TARGET's absolute path, for sweep to find it. */
    if ((abs = realpath(target, NULL)) == NULL ||
        (tfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || flock(tfd, LOCK_EX) < 0) {
        rr_fail(&err, errno, "apply: TARGET %s", target);
        log_error(&err);
        return WB_JOB_ERROR;
    }
    if (apply_journal_open(ctx, tfd, &j, &err) < 0) {
        rr_wrap(&err, "apply: nothing applied");
        log_error(&err);
        return WB_JOB_ERROR;
    }
    if (recover(&j, tfd) == 0) {
        struct wb_target t = {.fd = tfd, .path = abs, .journal = j.fd};
        r = wb_apply(cs, src, &t, &res, &err);
        report(r, &res, &err);
        if (r >= 0)
            base_note(cs, tfd, r == 1);
        wb_apply_result_free(&res);
    }
    apply_journal_close(&j);
    return r == 0 ? WB_JOB_ACCEPT : r == 1 ? WB_JOB_CONFLICT : WB_JOB_ERROR;
}
