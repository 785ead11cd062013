#include "runtime/cli.h"
#include "runtime/log.h"

int cli_sweep(struct cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    log_msg(LOG_ERROR, "%s: not built yet", argv[0]);
    return CLI_ERROR;
}
