/* The command line: one thin function per command (option parsing, then one
 * call into the parts). Each returns the process exit status. */
#ifndef REVRUN_CLI_H
#define REVRUN_CLI_H

#include <stdbool.h>

struct cli_ctx {
    const char *root; /* state root: --root, or the default for this user */
    bool rootless;    /* not running as root in the initial user namespace */
    bool systemd_cgroup; /* --systemd-cgroup: cgroupsPath is slice:prefix:name */
};

/* argv[0] is the command name; getopt state is reset before each call. */
typedef int (*cli_fn)(struct cli_ctx *ctx, int argc, char **argv);

int cli_spec(struct cli_ctx *ctx, int argc, char **argv);
int cli_create(struct cli_ctx *ctx, int argc, char **argv);
int cli_start(struct cli_ctx *ctx, int argc, char **argv);
int cli_state(struct cli_ctx *ctx, int argc, char **argv);
int cli_kill(struct cli_ctx *ctx, int argc, char **argv);
int cli_destroy(struct cli_ctx *ctx, int argc, char **argv);
int cli_run(struct cli_ctx *ctx, int argc, char **argv);
int cli_list(struct cli_ctx *ctx, int argc, char **argv);
int cli_check(struct cli_ctx *ctx, int argc, char **argv);
int cli_diff(struct cli_ctx *ctx, int argc, char **argv);
int cli_export(struct cli_ctx *ctx, int argc, char **argv);
int cli_apply(struct cli_ctx *ctx, int argc, char **argv);
int cli_writeback(struct cli_ctx *ctx, int argc, char **argv);
int cli_review(struct cli_ctx *ctx, int argc, char **argv);
int cli_sweep(struct cli_ctx *ctx, int argc, char **argv);
int cli_broker(struct cli_ctx *ctx, int argc, char **argv);
int cli_relay(struct cli_ctx *ctx, int argc, char **argv); /* hidden: tests, benchmarks */
/* runc's verbs (engines call them) */
int cli_exec(struct cli_ctx *ctx, int argc, char **argv);
int cli_ps(struct cli_ctx *ctx, int argc, char **argv);
int cli_pause(struct cli_ctx *ctx, int argc, char **argv);
int cli_resume(struct cli_ctx *ctx, int argc, char **argv);
int cli_update(struct cli_ctx *ctx, int argc, char **argv);
int cli_features(struct cli_ctx *ctx, int argc, char **argv);

/* revrun --version: as crun prints it (version, spec, +FEATURES). */
#include <stdio.h>
void cli_version(FILE *out);

/* The command's argv while it runs, for naming a bad option. */
extern char **cli_argv;

/* Exit statuses shared by the commands. */
enum {
    CLI_OK = 0,
    CLI_ERROR = 1,
    CLI_USAGE = 2, /* bad command line (diff uses 2 for "refused" instead) */
    CLI_EXEC_FAILED = 255, /* exec could not start the process (runc's status) */
};

void cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
