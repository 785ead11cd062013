#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"

int cli_start(struct rr_ctx *ctx, int argc, char **argv)
{
    struct rr_error err;

    if (!cli_no_options(argc, argv))
        return CLI_USAGE;
    if (argc != 2) {
        cli_usage_error("start", "expected one container ID");
        return CLI_USAGE;
    }
    if (container_start(ctx, argv[1], &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
