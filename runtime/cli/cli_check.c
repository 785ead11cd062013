/* revrun check [--bundle DIR] [--json]: what this host can enforce (runtime/check:
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
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    const char *bundle = NULL;
    bool json = false;
    int c;

    while ((c = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        if (c == 'j') {
            json = true;
        } else if (c == 'b') {
            bundle = optarg;
        } else {
            cli_usage_error("check", "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind != argc) {
        cli_usage_error("check", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    return check_run(ctx, bundle, json) == 0 ? CLI_OK : CLI_ERROR;
}
