/* revrun ps [--format table|json] ID [PS_ARGS...]: json is an array of the
 * container's host pids (what containerd's shim and the CRI's ListPids
 * read); table runs the host's `ps` (default `ps -ef`) and keeps its header
 * and the lines whose PID column is the container's, as runc does. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/escape.h"
#include "runtime/cli/cli.h"
#include "runtime/container/log.h"
#include "runtime/container/verbs.h"

#define PS_LINE_MAX 8192

/* Which whitespace-separated column of the header is "PID". */
static int pid_column(const char *header)
{
    int col = 0;

    for (const char *p = header; *p != '\0';) {
        size_t n;
        while (*p == ' ' || *p == '\t')
            p++;
        n = strcspn(p, " \t\n");
        if (n == 3 && strncmp(p, "PID", 3) == 0)
            return col;
        if (n == 0)
            break;
        p += n;
        col++;
    }
    return -1;
}

static long column_value(const char *line, int col)
{
    const char *p = line;

    for (int i = 0; i <= col; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (i == col)
            return strtol(p, NULL, 10);
        p += strcspn(p, " \t\n");
    }
    return -1;
}

static bool member(const pid_t *pids, size_t n, long pid)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

static int filter(FILE *in, const pid_t *pids, size_t n)
{
    char line[PS_LINE_MAX];
    int col;

    if (fgets(line, sizeof(line), in) == NULL)
        return -1;
    col = pid_column(line);
    if (col < 0) {
        log_msg(LOG_ERROR, "ps: no PID column in ps's output");
        return -1;
    }
    fputs(line, stdout);
    while (fgets(line, sizeof(line), in) != NULL)
        if (member(pids, n, column_value(line, col)))
            fputs(line, stdout);
    return 0;
}

static int table(const pid_t *pids, size_t n, char **ps_args, int n_args)
{
    char *argv[64] = {"ps", "-ef"};
    int fds[2], st, r;
    pid_t child;
    FILE *in;

    if (n_args > 0) {
        if (n_args > 62) {
            cli_usage_error("ps", "too many ps arguments");
            return CLI_USAGE;
        }
        for (int i = 0; i < n_args; i++)
            argv[i + 1] = ps_args[i];
        argv[n_args + 1] = NULL;
    }
    if (pipe2(fds, O_CLOEXEC) < 0)
        return CLI_ERROR;
    child = fork();
    if (child < 0)
        return CLI_ERROR;
    if (child == 0) {
        dup2(fds[1], 1);
        execvp("ps", argv);
        _exit(127);
    }
    close(fds[1]);
    in = fdopen(fds[0], "r");
    if (in == NULL)
        return CLI_ERROR;
    r = filter(in, pids, n);
    fclose(in);
    while (waitpid(child, &st, 0) < 0 && errno == EINTR)
        ;
    if (r < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        log_msg(LOG_ERROR, "ps: `ps` failed (is procps installed?)");
        return CLI_ERROR;
    }
    return CLI_OK;
}

int cli_ps(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    const char *format = "table";
    struct rr_error err;
    pid_t *pids = NULL;
    size_t n = 0;
    int c, rc;

    while ((c = getopt_long(argc, argv, "+f:", opts, NULL)) != -1) {
        if (c != 'f') {
            cli_usage_error("ps", "unknown option");
            return CLI_USAGE;
        }
        format = optarg;
    }
    if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
        cli_usage_error("ps", "--format must be table or json");
        return CLI_USAGE;
    }
    if (optind >= argc) {
        cli_usage_error("ps", "expected a container ID");
        return CLI_USAGE;
    }
    if (strcmp(format, "json") == 0 && argc - optind != 1) {
        cli_usage_error("ps", "ps arguments do not go with --format json");
        return CLI_USAGE;
    }
    if (container_pids(ctx, argv[optind], &pids, &n, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    if (strcmp(format, "json") == 0) {
        putchar('[');
        for (size_t i = 0; i < n; i++)
            printf("%s%d", i ? "," : "", (int)pids[i]);
        puts("]");
        rc = CLI_OK;
    } else {
        fflush(stdout);
        rc = table(pids, n, argv + optind + 1, argc - optind - 1);
    }
    free(pids);
    return rc;
}
