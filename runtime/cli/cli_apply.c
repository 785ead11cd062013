/* revrun apply DIR --to TARGET --approve DIGEST
 * Applies an exported change set onto TARGET, all or nothing, once DIGEST is
 * the digest of what DIR's manifest does. Exit (common/exitcode.h): 0
 * applied, 7 a wrong digest, 6 TARGET no longer holds the base (nothing
 * written either way), 1 an error (TARGET restored), 2 a bad command line. */
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cli/cli_wb.h"
#include "runtime/jobs/changeset_dir.h"
#include "runtime/container/log.h"
#include "writeback/changeset/manifest.h"
#include "writeback/rules/rules.h"

static int load(const char *dir, struct wb_changeset *cs, unsigned char digest[WB_SHA256_LEN],
                int *dfd)
{
    struct rr_writeback_policy pol;
    struct rr_error err;
    int r = -1;

    if ((*dfd = changeset_dir_open(dir, &err)) < 0) {
        rr_wrap(&err, "apply");
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
        rr_wrap(&err, "apply: %s", dir);
        log_error(&err);
    }
    return r;
}

int cli_apply(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"approve", required_argument, NULL, 'a'},
        {NULL, 0, NULL, 0},
    };
    const char *target = NULL, *approve = NULL;
    struct wb_changeset cs = {0};
    unsigned char digest[WB_SHA256_LEN];
    _cleanup_close_ int dfd = -1;
    struct wb_source src;
    int c, r;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 't')
            target = optarg;
        else if (c == 'a')
            approve = optarg;
        else {
            cli_wb_usage(argv[0], "unknown option");
            return WB_JOB_USAGE;
        }
    }
    if (optind + 1 != argc || target == NULL || approve == NULL) {
        cli_wb_usage(argv[0], "usage: apply DIR --to TARGET --approve DIGEST");
        return WB_JOB_USAGE;
    }
    if (load(argv[optind], &cs, digest, &dfd) < 0) {
        wb_changeset_free(&cs);
        return WB_JOB_ERROR;
    }
    src = (struct wb_source){.rootfd = dfd, .blobs = true};
    r = wb_job_apply(ctx, &cs, digest, approve, &src, target);
    wb_changeset_free(&cs);
    return r;
}
