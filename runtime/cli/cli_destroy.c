#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"

int cli_destroy(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"force", no_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    struct rr_error err;
    bool force = false;
    int c;

    while ((c = getopt_long(argc, argv, "f", opts, NULL)) != -1) {
        if (c == 'f') {
            force = true;
        } else {
            cli_usage_error(argv[0], "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error(argv[0], "expected one container ID");
        return CLI_USAGE;
    }
    /* runc's delete: what is not there is an error, unless --force (the
     * shim and conmon match "container does not exist"); revrun's own
     * destroy stays idempotent. */
    if (!force && strcmp(argv[0], "delete") == 0) {
        struct opened o;
        int r = open_container(ctx, argv[optind], false, &o, &err);
        opened_close(&o);
        if (r < 0 && err.errnum == ENOENT) {
            rr_wrap(&err, "delete %s", argv[optind]);
            log_error(&err);
            return CLI_ERROR;
        }
    }
    if (container_destroy(ctx, argv[optind], force, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
