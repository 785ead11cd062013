#include <stdio.h>
#include <stdlib.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"

int cli_state(struct rr_ctx *ctx, int argc, char **argv)
{
    struct rr_error err;
    char *json = NULL;

    if (!cli_no_options(argc, argv))
        return CLI_USAGE;
    if (argc != 2) {
        cli_usage_error("state", "expected one container ID");
        return CLI_USAGE;
    }
    if (container_state_json(ctx, argv[1], &json, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    printf("%s\n", json);
    free(json);
    return CLI_OK;
}
