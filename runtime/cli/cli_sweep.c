#include <getopt.h>
#include <stdio.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/jobs/sweep.h"

int cli_sweep(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"older-than", required_argument, NULL, 'o'},
        {"exports", required_argument, NULL, 'e'},
        {NULL, 0, NULL, 0},
    };
    static struct sweep_report rep;
    struct sweep_opts o = {0};
    struct rr_error err;
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'o' && parse_duration(optarg, &o.older_than_s)) {
            continue;
        } else if (c == 'e') {
            o.exports = optarg;
        } else if (c != 'o') {
            cli_usage_error("sweep", "unknown option");
            return CLI_USAGE;
        } else {
            cli_usage_error("sweep", "usage: sweep [--older-than DURATION] [--exports DIR]");
            return CLI_USAGE;
        }
    }
    if (optind != argc || (o.exports != NULL && o.older_than_s == 0)) {
        cli_usage_error("sweep", "usage: sweep [--older-than DURATION] [--exports DIR] "
                                 "(--exports needs --older-than)");
        return CLI_USAGE;
    }
    if (container_sweep(ctx, &o, &rep, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    for (size_t i = 0; i < rep.n && i < SWEEP_MAX_LINES; i++)
        log_msg(LOG_INFO, "%s", rep.lines[i]);
    for (size_t i = 0; i < rep.n && i < SWEEP_MAX_LINES; i++)
        printf("%s\n", rep.lines[i]);
    return CLI_OK;
}
