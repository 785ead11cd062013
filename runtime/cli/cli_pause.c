#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/container/verbs.h"

static int pause_or_resume(struct rr_ctx *ctx, int argc, char **argv, bool pause)
{
    struct rr_error err;

    if (!cli_no_options(argc, argv))
        return CLI_USAGE;
    if (argc != 2) {
        cli_usage_error(argv[0], "expected one container ID");
        return CLI_USAGE;
    }
    if (container_pause(ctx, argv[1], pause, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}

int cli_pause(struct rr_ctx *ctx, int argc, char **argv)
{
    return pause_or_resume(ctx, argc, argv, true);
}

int cli_resume(struct rr_ctx *ctx, int argc, char **argv)
{
    return pause_or_resume(ctx, argc, argv, false);
}
