/* revrun export [--deny-content FILE] (ID | --lower DIR --upper DIR --format F) DIR
 * Vets the upper and, when accepted, writes DIR/manifest.json and DIR/blobs/:
 * the bundle may be destroyed right after. Prints the digest to approve.
 * revrun export DIR --format mbox [--author "N <e>"] [--only P]... [--exclude P]...
 * The exported set DIR as the mail of the commit `apply --commit` would
 * write, on stdout, for `git am`.
 * Exit (common/exitcode.h): 0 exported, 5 refused (nothing written), 1 an
 * error, 2 a bad command line (a part that names nothing or is broken too). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

#include "runtime/cli/cli_wb.h"
#include "runtime/container/log.h"
#include "runtime/jobs/mail_job.h"
#include "writeback/export/export.h"

enum { OPT_AUTHOR = 0x2000, OPT_ONLY, OPT_EXCLUDE };

/* export DIR --format mbox: the operands and the mail options checked. */
static int mail(int argc, char **argv, const struct wb_job_source *o, const char *author,
                const char **only, const char **excl)
{
    struct wb_subset_spec part = {.only = only, .exclude = excl};

    if (o->lower || o->upper || optind + 1 != argc) {
        cli_wb_usage(argv[0], "usage: export DIR --format mbox (DIR: an exported change set)");
        return WB_JOB_USAGE;
    }
    return wb_job_mail_export(argv[optind], author, &part);
}

int cli_export(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_WB_SOURCE_OPTIONS,
        {"author", required_argument, NULL, OPT_AUTHOR},
        {"only", required_argument, NULL, OPT_ONLY},
        {"exclude", required_argument, NULL, OPT_EXCLUDE},
        {NULL, 0, NULL, 0},
    };
    _cleanup_free_ const char **only = calloc((size_t)argc + 1, sizeof(char *));
    _cleanup_free_ const char **excl = calloc((size_t)argc + 1, sizeof(char *));
    struct wb_job_source o = {0};
    const char *id, *author = NULL;
    size_t no = 0, nx = 0;
    struct wb_job run;
    unsigned char digest[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX];
    struct rr_error err;
    int c, r;
    bool bad, mbox;

    if (only == NULL || excl == NULL)
        return WB_JOB_ERROR;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == OPT_AUTHOR)
            author = optarg;
        else if (c == OPT_ONLY)
            only[no++] = optarg;
        else if (c == OPT_EXCLUDE)
            excl[nx++] = optarg;
        else if (!cli_wb_option(&o, c, optarg)) {
            cli_wb_usage(argv[0], "unknown option");
            return WB_JOB_USAGE;
        }
    }
    mbox = o.format != NULL && strcmp(o.format, "mbox") == 0;
    if (mbox)
        return mail(argc, argv, &o, author, only, excl);
    if (author || no || nx) {
        cli_wb_usage(argv[0], "--author, --only and --exclude go with --format mbox");
        return WB_JOB_USAGE;
    }
    id = cli_wb_source_operand(argv[0], &o, argc, argv, &optind, &bad);
    if (bad || optind + 1 != argc) {
        if (!bad)
            cli_wb_usage(argv[0], "expected one export directory");
        return WB_JOB_USAGE;
    }
    if ((r = wb_job_vet(ctx, argv[0], &o, id, &run)) != 0) {
        wb_job_release(&run);
        return r;
    }
    if (wb_changeset_refused(&run.scan.cs)) {
        wb_job_print_refusal(&run.scan.cs);
        r = WB_JOB_REFUSED;
    } else if (wb_export(&run.scan, argv[optind], digest, &err) < 0) {
        log_error(&err);
        r = WB_JOB_ERROR;
    } else {
        wb_hex(digest, sizeof(digest), hex);
        printf("%s\n", hex);
    }
    wb_job_release(&run);
    return r;
}
