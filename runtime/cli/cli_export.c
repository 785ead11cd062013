/* revrun export [--deny-content FILE] (ID | --lower DIR --upper DIR --format F) DIR
 * Vets the upper and, when accepted, writes DIR/manifest.json and DIR/blobs/:
 * the bundle may be destroyed right after. Prints the digest to approve.
 * Exit: 0 exported, 2 refused (nothing written), 1 an error. */
#include <getopt.h>
#include <stdio.h>

#include "runtime/cli_wb.h"
#include "runtime/log.h"
#include "writeback/export.h"

int cli_export(struct cli_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {CLI_WB_SOURCE_OPTIONS, {NULL, 0, NULL, 0}};
    struct cli_wb_opts o = {0};
    struct cli_wb_run run;
    unsigned char digest[WB_SHA256_LEN];
    char hex[WB_SHA256_HEX];
    struct rr_error err;
    const char *id;
    int c, r;
    bool bad;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
        if (!cli_wb_option(&o, c, optarg)) {
            cli_wb_usage(argv[0], "unknown option");
            return CLI_WB_ERROR;
        }
    id = cli_wb_source_operand(argv[0], &o, argc, argv, &optind, &bad);
    if (bad || optind + 1 != argc) {
        if (!bad)
            cli_wb_usage(argv[0], "expected one export directory");
        return CLI_WB_ERROR;
    }
    if ((r = cli_wb_vet(ctx, argv[0], &o, id, &run)) != 0) {
        cli_wb_release(&run);
        return r;
    }
    if (wb_changeset_refused(&run.scan.cs)) {
        cli_wb_print_refusal(&run.scan.cs);
        r = CLI_WB_REFUSED;
    } else if (wb_export(&run.scan, argv[optind], digest, &err) < 0) {
        log_error(&err);
        r = CLI_WB_ERROR;
    } else {
        wb_hex(digest, sizeof(digest), hex);
        printf("%s\n", hex);
    }
    cli_wb_release(&run);
    return r;
}
