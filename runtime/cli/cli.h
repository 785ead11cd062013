/* The command line: one thin function per command (option parsing, then one
 * call into the parts). Each returns the process exit status. */
#ifndef REVRUN_CLI_H
#define REVRUN_CLI_H

#include <stdbool.h>

#include "common/exitcode.h"
#include "runtime/container/ctx.h"

/* argv[0] is the command name; getopt state is reset before each call. */
typedef int (*cli_fn)(struct rr_ctx *ctx, int argc, char **argv);

int cli_spec(struct rr_ctx *ctx, int argc, char **argv);
int cli_create(struct rr_ctx *ctx, int argc, char **argv);
int cli_start(struct rr_ctx *ctx, int argc, char **argv);
int cli_state(struct rr_ctx *ctx, int argc, char **argv);
int cli_kill(struct rr_ctx *ctx, int argc, char **argv);
int cli_destroy(struct rr_ctx *ctx, int argc, char **argv);
int cli_run(struct rr_ctx *ctx, int argc, char **argv);
int cli_list(struct rr_ctx *ctx, int argc, char **argv);
int cli_check(struct rr_ctx *ctx, int argc, char **argv);
int cli_diff(struct rr_ctx *ctx, int argc, char **argv);
int cli_export(struct rr_ctx *ctx, int argc, char **argv);
int cli_apply(struct rr_ctx *ctx, int argc, char **argv);
int cli_writeback(struct rr_ctx *ctx, int argc, char **argv);
int cli_review(struct rr_ctx *ctx, int argc, char **argv);
int cli_sweep(struct rr_ctx *ctx, int argc, char **argv);
int cli_broker(struct rr_ctx *ctx, int argc, char **argv);
int cli_relay(struct rr_ctx *ctx, int argc, char **argv); /* hidden: tests, benchmarks */
/* runc's verbs (engines call them) */
int cli_exec(struct rr_ctx *ctx, int argc, char **argv);
int cli_ps(struct rr_ctx *ctx, int argc, char **argv);
int cli_pause(struct rr_ctx *ctx, int argc, char **argv);
int cli_resume(struct rr_ctx *ctx, int argc, char **argv);
int cli_update(struct rr_ctx *ctx, int argc, char **argv);
int cli_features(struct rr_ctx *ctx, int argc, char **argv);
int cli_activity(struct rr_ctx *ctx, int argc, char **argv);

/* revrun --version: as crun prints it (version, spec, +FEATURES). */
#include <stdio.h>
void cli_version(FILE *out);

/* The command's argv while it runs, for naming a bad option. */
extern char **cli_argv;

/* Exit statuses: the one table is common/exitcode.h. */
enum {
    CLI_OK = RR_EXIT_OK,
    CLI_ERROR = RR_EXIT_ERROR,
    CLI_USAGE = RR_EXIT_USAGE,
    CLI_EXEC_FAILED = RR_EXIT_EXEC,
};

void cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* For a command that takes no options: the first argument that looks like
 * one is reported, named ("unknown option '--x'"); true when there is none. */
bool cli_no_options(int argc, char **argv);

#endif
