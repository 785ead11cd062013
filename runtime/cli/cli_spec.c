/* revrun spec [--lower DIR] [--rootless] [--agent NAME|FILE] [flags]: the
 * config.json those produce, for the operator to read or edit. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/cli/cli.h"
#include "runtime/cli/cli_spec_opts.h"
#include "runtime/container/log.h"
#include "runtime/confine/profile/profile.h"

static int print_spec(const char *lower, bool rootless, const struct cli_spec_flags *f)
{
    struct rr_config cfg;
    struct rr_preset preset;
    struct rr_error err;
    char *json = NULL;
    int rc = CLI_OK;

    if (profile_default_config(&cfg, lower, rootless, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    if (spec_build(&cfg, f->agent, &f->spec, &preset, &err) < 0 ||
        config_to_json(&cfg, &json, &err) < 0) {
        log_error(&err);
        rc = CLI_ERROR;
    } else {
        printf("%s\n", json);
        rc = fflush(stdout) == 0 ? CLI_OK : CLI_ERROR;
    }
    free(json);
    preset_free(&preset);
    config_free(&cfg);
    return rc;
}

int cli_spec(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"lower", required_argument, NULL, 'l'},
        {"rootless", no_argument, NULL, 'r'},
        CLI_SPEC_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    struct cli_spec_flags f = {0};
    const char *lower = NULL;
    char abs[PATH_MAX];
    bool rootless = ctx->rootless;
    int c, rc;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int taken = cli_spec_flag(c, optarg, &f);
        if (taken < 0) {
            cli_spec_flags_free(&f);
            return taken == -2 ? CLI_USAGE : CLI_ERROR;
        }
        if (taken)
            continue;
        if (c == 'l') {
            lower = optarg;
        } else if (c == 'r') {
            rootless = true;
        } else {
            cli_usage_error("spec", "unknown option");
            cli_spec_flags_free(&f);
            return CLI_USAGE;
        }
    }
    if (optind != argc) {
        cli_usage_error("spec", "unexpected argument '%s'", argv[optind]);
        cli_spec_flags_free(&f);
        return CLI_USAGE;
    }
    if (lower != NULL) {
        if (realpath(lower, abs) == NULL) {
            log_msg(LOG_ERROR, "spec: --lower %s: %m", lower);
            cli_spec_flags_free(&f);
            return CLI_ERROR;
        }
        lower = abs;
    }
    cli_spec_flags_warn(&f);
    rc = print_spec(lower, rootless, &f);
    cli_spec_flags_free(&f);
    return rc;
}
