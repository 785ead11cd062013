#include <getopt.h>
#include <signal.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/cli/signame.h"

int cli_kill(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"all", no_argument, NULL, 'a'},
        {NULL, 0, NULL, 0},
    };
    struct rr_error err;
    bool all = false;
    int sig = SIGTERM, c;

    while ((c = getopt_long(argc, argv, "a", opts, NULL)) != -1) {
        if (c != 'a') {
            cli_usage_error("kill", "unknown option");
            return CLI_USAGE;
        }
        all = true;
    }
    if (argc - optind != 1 && argc - optind != 2) {
        cli_usage_error("kill", "expected [--all] ID [SIGNAL]");
        return CLI_USAGE;
    }
    if (argc - optind == 2 && (sig = signal_parse(argv[optind + 1])) < 0) {
        cli_usage_error("kill", "unknown signal '%s'", argv[optind + 1]);
        return CLI_USAGE;
    }
    if ((all ? container_kill_all(ctx, argv[optind], sig, &err)
             : container_kill(ctx, argv[optind], sig, &err)) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
