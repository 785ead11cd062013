/* revrun writeback [--deny-content FILE] (ID | --lower DIR --upper DIR --format F)
 *                  --to TARGET --approve DIGEST
 * Vets the upper and applies it straight from there (no export directory),
 * all or nothing, when DIGEST is the digest of the vetted change set.
 * Exit (common/exitcode.h): 0 applied, 5 refused, 7 a wrong digest, 6 TARGET
 * no longer holds the base, 1 an error (TARGET restored), 2 a bad command line. */
#include <getopt.h>

#include "runtime/cli/cli_wb.h"
#include "runtime/container/log.h"
#include "writeback/changeset/manifest.h"

int cli_writeback(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"to", required_argument, NULL, 't'},
        {"approve", required_argument, NULL, 'a'},
        CLI_WB_SOURCE_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *target = NULL, *approve = NULL, *id;
    struct wb_job_source o = {0};
    struct wb_job run;
    unsigned char digest[WB_SHA256_LEN];
    struct wb_source src;
    struct rr_error err;
    int c, r;
    bool bad;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 't')
            target = optarg;
        else if (c == 'a')
            approve = optarg;
        else if (!cli_wb_option(&o, c, optarg)) {
            cli_wb_usage(argv[0], "unknown option");
            return WB_JOB_USAGE;
        }
    }
    id = cli_wb_source_operand(argv[0], &o, argc, argv, &optind, &bad);
    if (bad || optind != argc || target == NULL || approve == NULL) {
        if (!bad)
            cli_wb_usage(argv[0], "usage: writeback (ID | --lower DIR --upper DIR --format F) "
                                  "--to TARGET --approve DIGEST");
        return WB_JOB_USAGE;
    }
    if ((r = wb_job_vet(ctx, argv[0], &o, id, &run)) == 0) {
        if (wb_changeset_refused(&run.scan.cs)) {
            wb_job_print_refusal(&run.scan.cs);
            r = WB_JOB_REFUSED;
        } else if (wb_changeset_digest(&run.scan.cs, digest, &err) < 0) {
            log_error(&err);
            r = WB_JOB_ERROR;
        } else {
            src = (struct wb_source){.rootfd = run.scan.upper_fd, .blobs = false};
            r = wb_job_apply(ctx, &run.scan.cs, digest, approve, &src, target);
        }
    }
    wb_job_release(&run);
    return r;
}
