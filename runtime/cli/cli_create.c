#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"

int cli_create(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"bundle", required_argument, NULL, 'b'},
        {"pid-file", required_argument, NULL, 'p'},
        {"console-socket", required_argument, NULL, 'c'},
        {"preserve-fds", required_argument, NULL, 'f'},
        {"no-pivot", no_argument, NULL, 'n'},
        {"no-new-keyring", no_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    struct create_opts o = {.bundle = "."};
    struct rr_error err;
    int c;

    while ((c = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        if (c == 'b') {
            o.bundle = optarg;
        } else if (c == 'p') {
            o.pid_file = optarg;
        } else if (c == 'c') {
            o.console_socket = optarg;
        } else if (c == 'n' || c == 'k') {
            /* runc's: revrun always pivots, and keyctl is denied by the
             * seccomp floor (no keyring to share or to make) */
        } else if (c == 'f') {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end != '\0' || end == optarg || n < 0 || n > 1024) {
                cli_usage_error("create", "--preserve-fds takes 0 to 1024");
                return CLI_USAGE;
            }
            o.preserve_fds = (int)n;
        } else {
            cli_usage_error("create", "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind != argc - 1) {
        cli_usage_error("create", "expected one container ID");
        return CLI_USAGE;
    }
    o.id = argv[optind];
    if (container_create(ctx, &o, NULL, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    return CLI_OK;
}
