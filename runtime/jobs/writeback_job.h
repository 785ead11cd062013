/* What the write-back commands (diff, export, apply, writeback) share on the
 * command line: the source of an upper (a live bundle's ID, or a bare
 * --lower/--upper/--format pair from any overlay user), the secret canary,
 * and the vetting run. */
#ifndef REVRUN_CLI_WB_H
#define REVRUN_CLI_WB_H

#include <getopt.h>
#include <stdbool.h>

#include "runtime/cli.h"
#include "runtime/container_upper.h"
#include "writeback/apply.h"
#include "writeback/deny.h"
#include "writeback/scan.h"

/* Exit statuses of the write-back commands. */
enum { CLI_WB_ACCEPT = 0, CLI_WB_ERROR = 1, CLI_WB_REFUSED = 2 };

enum { CLI_WB_OPT_LOWER = 0x1000, CLI_WB_OPT_UPPER, CLI_WB_OPT_FORMAT, CLI_WB_OPT_DENY };

#define CLI_WB_SOURCE_OPTIONS                                                                      \
    {"lower", required_argument, NULL, CLI_WB_OPT_LOWER},                                          \
        {"upper", required_argument, NULL, CLI_WB_OPT_UPPER},                                      \
        {"format", required_argument, NULL, CLI_WB_OPT_FORMAT},                                    \
    {                                                                                              \
        "deny-content", required_argument, NULL, CLI_WB_OPT_DENY                                   \
    }

struct cli_wb_opts {
    const char *lower, *upper, *format, *deny;
};

/* A command-line mistake, reported as cli_usage_error does (that one lives
 * in main.c, which the unit tests do not link). */
void cli_wb_usage(const char *cmd, const char *what);

/* Take one of the source options; false when c is not one of them. */
bool cli_wb_option(struct cli_wb_opts *o, int c, const char *arg);

struct cli_wb_run {
    struct container_upper cu;
    struct wb_deny deny;
    struct wb_scan scan;
    bool scanned;
};

/* Open the source (id, or the pair when id is NULL) and vet it. Returns 0,
 * or the exit status after reporting the error. */
int cli_wb_vet(struct cli_ctx *ctx, const char *cmd, const struct cli_wb_opts *o, const char *id,
               struct cli_wb_run *run);
void cli_wb_release(struct cli_wb_run *run);

/* The ID operand or the pair, exactly one: returns the id (NULL for the
 * pair), or reports and sets *bad. */
const char *cli_wb_source_operand(const char *cmd, const struct cli_wb_opts *o, int argc,
                                  char **argv, int *next, bool *bad);

/* Print the reasons of a refused set to stderr (escaped). */
void cli_wb_print_refusal(const struct wb_changeset *cs);

/* Check that approve is digest, then apply cs from src onto target and
 * report; returns the exit status. An earlier apply onto target that died
 * mid-commit is rolled back first (apply_journal.h). */
int cli_wb_apply(struct cli_ctx *ctx, const struct wb_changeset *cs,
                 const unsigned char digest[WB_SHA256_LEN], const char *approve,
                 const struct wb_source *src, const char *target);

#endif
