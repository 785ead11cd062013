/* revrun export [--deny-content FILE] (ID | --lower DIR --upper DIR --format F) DIR
 * Vets the upper and, when accepted, writes DIR/manifest.json and DIR/blobs/:
 * the bundle may be destroyed right after. Prints the digest to approve.
 * Exit (common/exitcode.h): 0 exported, 5 refused (nothing written), 1 an
 * error, 2 a bad command line. */
#include <getopt.h>
#include <stdio.h>

#include "runtime/cli/cli_wb.h"
#include "runtime/container/log.h"
#include "writeback/export/export.h"

int cli_export(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {CLI_WB_SOURCE_OPTIONS, {NULL, 0, NULL, 0}};
    struct wb_job_source o = {0};
    struct wb_job run;
    unsigned char digest[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX];
    struct rr_error err;
    const char *id;
    int c, r;
    bool bad;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
        if (!cli_wb_option(&o, c, optarg)) {
            cli_wb_usage(argv[0], "unknown option");
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
