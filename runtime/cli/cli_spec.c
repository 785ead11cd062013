#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/confine/profile.h"

int cli_spec(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"lower", required_argument, NULL, 'l'},
        {"rootless", no_argument, NULL, 'r'},
        {"egress-upstream", required_argument, NULL, 'u'},
        {"credential-file", required_argument, NULL, 'f'},
        {"credential-env", required_argument, NULL, 'e'},
        {NULL, 0, NULL, 0},
    };
    const char *upstream = NULL, *cred_file = NULL, *cred_env = NULL;
    const char *lower = NULL;
    char abs[PATH_MAX];
    bool rootless = ctx->rootless;
    struct rr_config cfg;
    struct rr_error err;
    char *json = NULL;
    int c;

    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'l') {
            lower = optarg;
        } else if (c == 'r') {
            rootless = true;
        } else if (c == 'u') {
            upstream = optarg;
        } else if (c == 'f') {
            cred_file = optarg;
        } else if (c == 'e') {
            cred_env = optarg;
        } else {
            cli_usage_error("spec", "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind != argc) {
        cli_usage_error("spec", "unexpected argument '%s'", argv[optind]);
        return CLI_USAGE;
    }
    if (lower != NULL) {
        if (realpath(lower, abs) == NULL) {
            log_msg(LOG_ERROR, "spec: --lower %s: %m", lower);
            return CLI_ERROR;
        }
        lower = abs;
    }
    if ((upstream == NULL) != (cred_file == NULL && cred_env == NULL)) {
        cli_usage_error("spec", "--egress-upstream goes with --credential-file or "
                                "--credential-env");
        return CLI_USAGE;
    }
    if (profile_default_config(&cfg, lower, rootless, &err) < 0 ||
        (upstream != NULL && profile_add_egress(&cfg, upstream, cred_file, cred_env, &err) < 0) ||
        config_to_json(&cfg, &json, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    config_free(&cfg);
    printf("%s\n", json);
    free(json);
    return fflush(stdout) == 0 ? CLI_OK : CLI_ERROR;
}
