/* revrun exec --process FILE [--detach] [--pid-file F] [--console-socket S]
 *             [--tty] [--preserve-fds N] ID
 * revrun exec [--cwd DIR] [--env NAME=VALUE]... [--tty] ... ID CMD ARGS...
 * (runc's two forms). Exits with the process's status without --detach;
 * 255 when the process could not be started, as runc. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/exec.h"
#include "runtime/container/log.h"

int cli_exec(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"process", required_argument, NULL, 'p'},
        {"detach", no_argument, NULL, 'd'},
        {"pid-file", required_argument, NULL, 'P'},
        {"console-socket", required_argument, NULL, 'c'},
        {"tty", no_argument, NULL, 't'},
        {"cwd", required_argument, NULL, 'w'},
        {"env", required_argument, NULL, 'e'},
        {"preserve-fds", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    struct exec_opts o = {0};
    struct rr_strv env = {0};
    struct rr_error err;
    int c, status = 0, rc;

    /* "+": options end at the ID, so the command keeps its own */
    while ((c = getopt_long(argc, argv, "+p:dte:", opts, NULL)) != -1) {
        switch (c) {
        case 'p': o.process_file = optarg; break;
        case 'd': o.detach = true; break;
        case 'P': o.pid_file = optarg; break;
        case 'c': o.console_socket = optarg; break;
        case 't': o.tty = true; break;
        case 'w': o.cwd = optarg; break;
        case 'e':
            if (strchr(optarg, '=') == NULL || optarg[0] == '=' || strv_push(&env, optarg) < 0) {
                cli_usage_error("exec", "--env takes NAME=VALUE");
                strv_free(&env);
                return CLI_USAGE;
            }
            break;
        case 'f': {
            char *end;
            long n = strtol(optarg, &end, 10);
            if (*end != '\0' || n < 0 || n > 1024) {
                cli_usage_error("exec", "--preserve-fds takes 0 to 1024");
                strv_free(&env);
                return CLI_USAGE;
            }
            o.preserve_fds = (int)n;
            break;
        }
        default:
            cli_usage_error("exec", "unknown option");
            strv_free(&env);
            return CLI_USAGE;
        }
    }
    if (optind >= argc) {
        cli_usage_error("exec", "expected a container ID");
        strv_free(&env);
        return CLI_USAGE;
    }
    o.id = argv[optind];
    o.argv = argv + optind + 1;
    o.argc = argc - optind - 1;
    o.env = &env;
    if (o.argc > 0 && strcmp(o.argv[0], "--") == 0) {
        o.argv++;
        o.argc--;
    }
    /* --tty with --process: accepted as runc accepts it (podman's conmon
     * sends both for `podman exec -it`); the file's process.terminal
     * decides, as in runc. */
    if ((o.process_file != NULL) == (o.argc > 0) ||
        (o.process_file != NULL && (o.cwd != NULL || env.n > 0))) {
        cli_usage_error("exec", "give either --process FILE or a command after the ID (with "
                                "--cwd, --env only in the second form)");
        strv_free(&env);
        return CLI_USAGE;
    }
    rc = container_exec(ctx, &o, &status, &err);
    strv_free(&env);
    if (rc < 0) {
        log_error(&err);
        return CLI_EXEC_FAILED;
    }
    return status;
}
