/* revrun activity [--summary] ID: the container's activity record, as the
 * monitor wrote it (JSON lines, every text already escaped), or summed up. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cleanup.h"
#include "runtime/cli/cli.h"
#include "runtime/container/activity.h"
#include "runtime/container/log.h"
#include "runtime/jobs/activity_summary.h"

int cli_activity(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {{"summary", no_argument, NULL, 's'},
                                         {NULL, 0, NULL, 0}};
    _cleanup_free_ char *text = NULL;
    struct act_summary s;
    struct rr_error err;
    bool summary = false;
    size_t len;
    int c;

    while ((c = getopt_long(argc, argv, "+s", opts, NULL)) != -1) {
        if (c != 's') {
            cli_usage_error("activity", "unknown option");
            return CLI_USAGE;
        }
        summary = true;
    }
    if (optind != argc - 1) {
        cli_usage_error("activity", "expected one container ID");
        return CLI_USAGE;
    }
    if (container_read_activity(ctx, argv[optind], &text, &len, &err) < 0 ||
        (summary && act_summary_load(text, len, &s, &err) < 0)) {
        log_error(&err);
        return CLI_ERROR;
    }
    if (summary) {
        act_summary_text(stdout, &s);
        act_summary_free(&s);
    } else {
        fwrite(text, 1, len, stdout);
    }
    return fflush(stdout) == 0 ? CLI_OK : CLI_ERROR;
}
