#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/jobs/engine_export.h"

/* runc's delete, as the runtime spec has it: what is not there is an error
 * ("container does not exist": the shim and conmon match the words), and
 * so is a container that is not stopped (created, running, paused), unless
 * --force. revrun's own destroy stays idempotent and takes a created one. */
static int delete_allowed(struct rr_ctx *ctx, const char *id, struct rr_error *err)
{
    struct opened o;
    enum container_status st;
    int r = open_container(ctx, id, false, &o, err);

    if (r < 0) {
        opened_close(&o);
        return err->errnum == ENOENT ? rr_wrap(err, "delete %s", id) : 0;
    }
    st = container_status_of(o.dir, o.have_state ? &o.state : NULL);
    opened_close(&o);
    if (st == STATUS_CREATED || st == STATUS_RUNNING || st == STATUS_PAUSED)
        return rr_fail(err, EBUSY, "delete %s: cannot delete container %s that is not stopped: %s "
                                   "(kill it first, or delete --force)",
                       id, id, container_status_name(st));
    return 0;
}

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
    if (!force && strcmp(argv[0], "delete") == 0 && delete_allowed(ctx, argv[optind], &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    engine_export_at_delete(ctx, argv[optind]);
    if (container_destroy(ctx, argv[optind], force, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
