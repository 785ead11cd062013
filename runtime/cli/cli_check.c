/* revrun check [--bundle DIR]: what this host can enforce (runtime/check:
 * check_run). Non-zero whenever create would fail here, or the bundle's
 * config needs what this host lacks. */
#include <getopt.h>
#include <stddef.h>

#include "runtime/check/check.h"
#include "runtime/cli/cli.h"

int cli_check(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"bundle", required_argument, NULL, 'b'},
        {NULL, 0, NULL, 0},
    };
    const char *bundle = NULL;
    int c;

    while ((c = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        if (c != 'b') {
            cli_usage_error("check", "unknown option");
            return CLI_USAGE;
        }
        bundle = optarg;
    }
    if (optind != argc) {
        cli_usage_error("check", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    return check_run(ctx, bundle) == 0 ? CLI_OK : CLI_ERROR;
}
