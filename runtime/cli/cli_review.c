/* revrun review --lower DIR --out DIR [--timeout S] [--bundle DIR] [--id ID]
 *               [--quiet|--json] [--agent NAME|FILE] [spec flags] -- CMD ARGS... */
#include <getopt.h>
#include <stdlib.h>

#include "runtime/cli/cli.h"
#include "runtime/cli/cli_paths.h"
#include "runtime/cli/cli_spec_opts.h"
#include "runtime/jobs/review.h"
#include "runtime/jobs/sweep.h"

int cli_review(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"lower", required_argument, NULL, 'l'},  {"out", required_argument, NULL, 'o'},
        {"timeout", required_argument, NULL, 't'}, {"bundle", required_argument, NULL, 'b'},
        {"id", required_argument, NULL, 'i'},     {"quiet", no_argument, NULL, 'q'},
        {"json", no_argument, NULL, 'J'},         CLI_SPEC_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct cli_spec_flags f = {0};
    struct review_opts o = {.agent = NULL, .spec = &f.spec};
    int c, rc = REVIEW_USAGE;

    while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
        int taken = cli_spec_flag(c, optarg, &f);
        if (taken < 0) {
            rc = taken == -2 ? CLI_USAGE : CLI_ERROR;
            goto out;
        }
        if (taken)
            continue;
        switch (c) {
        case 'l': o.lower = optarg; break;
        case 'o': o.out = optarg; break;
        case 'b': o.bundle = optarg; break;
        case 'i': o.id = optarg; break;
        case 'q': o.voice = REVIEW_VOICE_QUIET; break;
        case 'J': o.voice = REVIEW_VOICE_JSON; break;
        case 't':
            if (!parse_duration(optarg, &o.timeout_s) || o.timeout_s == 0) {
                cli_usage_error("review", "--timeout takes seconds (or 10m, 1h)");
                goto out;
            }
            break;
        default:
            cli_usage_error("review", "unknown option");
            goto out;
        }
    }
    if (o.lower == NULL || o.out == NULL || optind >= argc) {
        cli_usage_error("review", "usage: review --lower DIR --out DIR [--timeout S] -- CMD ARGS...");
        goto out;
    }
    if (!cli_paths_apart("review", o.lower, "--out", o.out, true))
        goto out;
    o.agent = f.agent;
    cli_spec_flags_warn(&f);
    o.cmd = argv + optind;
    o.n_cmd = argc - optind;
    rc = review_run(ctx, &o);
out:
    cli_spec_flags_free(&f);
    return rc;
}
