/* revrun apply DIR --to TARGET --approve DIGEST [--only P]... [--exclude P]...
 *              [--commit [--branch NAME] [--author "N <e>"] [--committer "N <e>"]]
 * Applies an exported change set (or the part --only/--exclude choose)
 * onto TARGET, all or nothing, once DIGEST is the digest of what DIR's
 * manifest does; with --commit, as a new commit on the set's base on a new
 * branch of the repository TARGET (printed: "BRANCH COMMIT"). Exit
 * (common/exitcode.h): 0 applied, 7 a wrong digest, 6 TARGET no longer
 * holds the base (with --commit: REPO lacks the base commit, the branch
 * exists, ...), nothing written either way; 1 an error (TARGET restored;
 * no branch made); 2 a bad command line, or a part that names nothing or
 * would leave a broken tree. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cli/cli_wb.h"
#include "runtime/jobs/apply_job.h"

/* Repeatable --only/--exclude: kept NULL-terminated in v (argc slots). */
static void push(const char **v, size_t *n, const char *arg)
{
    v[(*n)++] = arg;
    v[*n] = NULL;
}

static bool parse(int argc, char **argv, struct wb_apply_request *req, const char **only,
                  const char **excl)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"approve", required_argument, NULL, 'a'},
        {"commit", no_argument, NULL, 'c'},
        {"branch", required_argument, NULL, 'b'},
        {"author", required_argument, NULL, 'A'},
        {"committer", required_argument, NULL, 'C'},
        {"only", required_argument, NULL, 'o'},
        {"exclude", required_argument, NULL, 'x'},
        {NULL, 0, NULL, 0},
    };
    size_t no = 0, nx = 0;
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            req->target = optarg;
            break;
        case 'a':
            req->approve = optarg;
            break;
        case 'c':
            req->commit = true;
            break;
        case 'b':
            req->branch = optarg;
            break;
        case 'A':
            req->author = optarg;
            break;
        case 'C':
            req->committer = optarg;
            break;
        case 'o':
            push(only, &no, optarg);
            break;
        case 'x':
            push(excl, &nx, optarg);
            break;
        default:
            cli_wb_usage(argv[0], "unknown option");
            return false;
        }
    }
    if ((req->branch || req->author || req->committer) && !req->commit) {
        cli_wb_usage(argv[0], "--branch, --author and --committer go with --commit");
        return false;
    }
    if (optind + 1 != argc || req->target == NULL || req->approve == NULL) {
        cli_wb_usage(argv[0], "usage: apply DIR --to TARGET --approve DIGEST [--commit ...]");
        return false;
    }
    return true;
}

int cli_apply(struct rr_ctx *ctx, int argc, char **argv)
{
    _cleanup_free_ const char **only = calloc((size_t)argc + 1, sizeof(char *));
    _cleanup_free_ const char **excl = calloc((size_t)argc + 1, sizeof(char *));
    struct wb_apply_request req = {0};
    struct wb_changeset cs = {0};
    unsigned char digest[WB_SHA256_LEN];
    _cleanup_close_ int dfd = -1;
    struct wb_source src;
    int r;

    if (only == NULL || excl == NULL)
        return WB_JOB_ERROR;
    if (!parse(argc, argv, &req, only, excl))
        return WB_JOB_USAGE;
    req.subset = (struct wb_subset_spec){.only = only, .exclude = excl};
    if (wb_job_load_export("apply", argv[optind], &cs, digest, &dfd) < 0) {
        wb_changeset_free(&cs);
        return WB_JOB_ERROR;
    }
    src = (struct wb_source){.rootfd = dfd, .blobs = true};
    r = wb_job_apply_request(ctx, &cs, digest, &src, &req);
    wb_changeset_free(&cs);
    return r;
}
