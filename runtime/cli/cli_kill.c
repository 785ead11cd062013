#include <signal.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/cli/signame.h"

int cli_kill(struct rr_ctx *ctx, int argc, char **argv)
{
    struct rr_error err;
    int sig = SIGTERM;

    if (argc != 2 && argc != 3) {
        cli_usage_error("kill", "expected ID [SIGNAL]");
        return CLI_USAGE;
    }
    if (argc == 3 && (sig = signal_parse(argv[2])) < 0) {
        cli_usage_error("kill", "unknown signal '%s'", argv[2]);
        return CLI_USAGE;
    }
    if (container_kill(ctx, argv[1], sig, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
