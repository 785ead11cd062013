#include "runtime/jobs/apply_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "runtime/container/log.h"
#include "runtime/jobs/changeset_dir.h"
#include "writeback/apply/gitcommit.h"
#include "writeback/changeset/commitmsg.h"
#include "writeback/changeset/manifest.h"
#include "writeback/rules/rules.h"

int wb_job_load_export(const char *cmd, const char *dir, struct wb_changeset *cs,
                       unsigned char digest[WB_SHA256_LEN], int *dfd)
{
    struct rr_writeback_policy pol;
    struct rr_error err;
    int r = -1;

    if ((*dfd = changeset_dir_open(dir, &err)) < 0) {
        rr_wrap(&err, "%s", cmd);
        log_error(&err);
        return -1;
    }
    if (writeback_policy_defaults(&pol, &err) == 0) {
        r = wb_manifest_load(*dfd, &pol, cs, digest, &err);
        if (r == 0)
            r = wb_rules_recheck(cs, &pol, &err);
        writeback_policy_free(&pol);
    }
    if (r < 0) {
        rr_wrap(&err, "%s: %s", cmd, dir);
        log_error(&err);
    }
    return r;
}

static bool approved(const unsigned char digest[WB_SHA256_LEN], const char *approve)
{
    unsigned char want[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX];

    if (wb_digest_parse(approve, want) && memcmp(want, digest, WB_SHA256_LEN) == 0)
        return true;
    wb_hex(digest, WB_SHA256_LEN, hex);
    log_msg(LOG_ERROR,
            "apply: --approve is not the digest of this change set (%s): nothing "
            "applied",
            hex);
    return false;
}

static void print_notes(const char *what, const struct wb_notes *n)
{
    for (size_t i = 0; i < n->n; i++) {
        _cleanup_free_ char *p = rr_escape_dup(n->v[i].path, n->v[i].path_len);
        _cleanup_free_ char *d = rr_escape_dup(n->v[i].detail, strlen(n->v[i].detail));
        log_msg(LOG_ERROR, "apply: %s: %s: %s", what, p ? p : "?", d ? d : "?");
    }
}

int wb_job_take_part(const struct wb_changeset *cs, const struct wb_subset_spec *spec,
                     struct wb_changeset *sub, bool *left)
{
    struct wb_notes why = {0};
    struct rr_error err;
    int r = WB_JOB_ERROR;

    if (!wb_subset_wanted(spec))
        return WB_JOB_ACCEPT;
    if (wb_subset_select(cs, spec, left, &err) < 0) {
        log_error(&err);
        log_msg(LOG_ERROR, "apply: nothing applied");
        return err.errnum == ENOENT ? WB_JOB_USAGE : WB_JOB_ERROR;
    }
    if (wb_subset_check(cs, left, &why, &err) < 0 || wb_subset_take(cs, left, sub, &err) < 0) {
        log_error(&err);
    } else if (why.n > 0) {
        print_notes("the part would leave a broken tree", &why);
        log_msg(LOG_ERROR,
                "apply: the part chosen would leave %zu path%s broken: nothing "
                "applied",
                why.n, why.n == 1 ? "" : "s");
        r = WB_JOB_USAGE;
    } else if (sub->n == 0) {
        log_msg(LOG_ERROR, "apply: the part chosen holds no change: nothing applied");
        r = WB_JOB_USAGE;
    } else {
        r = WB_JOB_ACCEPT;
    }
    for (size_t i = 0; i < cs->n; i++)
        left[i] = !left[i];
    wb_notes_free(&why);
    return r;
}

static int commit_report(int r, const struct wb_commit_result *res, const struct rr_error *err,
                         const char *repo)
{
    if (r == 0) {
        printf("%s %s\n", res->branch, res->commit);
        if (res->empty_dirs > 0)
            log_msg(LOG_WARN,
                    "apply: %zu new empty director%s not in the commit (git records "
                    "none)",
                    res->empty_dirs, res->empty_dirs == 1 ? "y is" : "ies are");
        return WB_JOB_ACCEPT;
    }
    if (r == 1) {
        print_notes("conflict", &res->conflicts);
        log_msg(LOG_ERROR, "apply: %s: nothing written", res->why);
        return WB_JOB_CONFLICT;
    }
    log_error(err);
    log_msg(LOG_ERROR, "apply: no branch made in %s%s", repo,
            res->objects_written ? "; objects written into its store that no ref reaches are "
                                   "removed by git gc"
                                 : "");
    return WB_JOB_ERROR;
}

static int as_commit(const struct wb_changeset *whole, const struct wb_changeset *part,
                     const bool *left, const unsigned char digest[WB_SHA256_LEN],
                     const struct wb_source *src, const struct wb_apply_request *req)
{
    char hex[WB_SHA256_HEX];
    _cleanup_free_ char *msg = NULL;
    struct wb_commit_opts o = {.repo = req->target,
                               .branch = req->branch,
                               .author = req->author,
                               .committer = req->committer,
                               .digest_hex = hex};
    struct wb_commit_result res;
    struct rr_error err;
    size_t len;
    int r;

    wb_hex(digest, WB_SHA256_LEN, hex);
    if (wb_commit_message(whole, left, hex, &msg, &len, &err) < 0) {
        log_error(&err);
        return WB_JOB_ERROR;
    }
    o.message = msg;
    r = wb_commit_apply(part, src, &o, &res, &err);
    r = commit_report(r, &res, &err, req->target);
    wb_commit_result_free(&res);
    return r;
}

int wb_job_apply_request(struct rr_ctx *ctx, const struct wb_changeset *cs,
                         const unsigned char digest[WB_SHA256_LEN], const struct wb_source *src,
                         const struct wb_apply_request *req)
{
    _cleanup_free_ bool *left = calloc(cs->n + 1, sizeof(bool));
    struct wb_changeset sub = {0};
    const struct wb_changeset *part = cs;
    int r = WB_JOB_ACCEPT;

    if (left == NULL) {
        log_msg(LOG_ERROR, "apply: out of memory");
        return WB_JOB_ERROR;
    }
    if (!approved(digest, req->approve))
        return WB_JOB_DIGEST;
    if (wb_subset_wanted(&req->subset)) {
        r = wb_job_take_part(cs, &req->subset, &sub, left);
        part = &sub;
    }
    if (r == WB_JOB_ACCEPT)
        r = req->commit ? as_commit(cs, part, left, digest, src, req)
                        : wb_job_apply(ctx, part, digest, req->approve, src, req->target);
    wb_changeset_free(&sub);
    return r;
}
