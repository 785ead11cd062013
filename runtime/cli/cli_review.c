/* revrun review --lower DIR --out DIR [--timeout S] [--bundle DIR] [--id ID] -- CMD ARGS... */
#include <getopt.h>
#include <stdlib.h>

#include "runtime/cli/cli.h"
#include "runtime/jobs/review.h"
#include "runtime/jobs/sweep.h"

int cli_review(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"lower", required_argument, NULL, 'l'},  {"out", required_argument, NULL, 'o'},
        {"timeout", required_argument, NULL, 't'}, {"bundle", required_argument, NULL, 'b'},
        {"id", required_argument, NULL, 'i'},     {NULL, 0, NULL, 0},
    };
    struct review_opts o = {0};
    int c;

    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        switch (c) {
        case 'l': o.lower = optarg; break;
        case 'o': o.out = optarg; break;
        case 'b': o.bundle = optarg; break;
        case 'i': o.id = optarg; break;
        case 't':
            if (!parse_duration(optarg, &o.timeout_s) || o.timeout_s == 0) {
                cli_usage_error("review", "--timeout takes seconds (or 10m, 1h)");
                return REVIEW_SETUP_FAILED;
            }
            break;
        default:
            cli_usage_error("review", "unknown option");
            return REVIEW_SETUP_FAILED;
        }
    }
    if (o.lower == NULL || o.out == NULL || optind >= argc) {
        cli_usage_error("review", "usage: review --lower DIR --out DIR [--timeout S] -- CMD ARGS...");
        return REVIEW_SETUP_FAILED;
    }
    o.cmd = argv + optind;
    o.n_cmd = argc - optind;
    return review_run(ctx, &o);
}
