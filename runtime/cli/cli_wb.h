/* What the write-back commands (diff, export, apply, writeback) share on the
 * command line: the source of an upper (a live bundle's ID, or a bare
 * --lower/--upper/--format pair from any overlay user) and the secret
 * canary. The vetting run itself is runtime/jobs/writeback_job.h. */
#ifndef REVRUN_CLI_WB_H
#define REVRUN_CLI_WB_H

#include <getopt.h>
#include <stdbool.h>

#include "runtime/cli/cli.h"
#include "runtime/jobs/writeback_job.h"

enum { CLI_WB_OPT_LOWER = 0x1000, CLI_WB_OPT_UPPER, CLI_WB_OPT_FORMAT, CLI_WB_OPT_DENY };

#define CLI_WB_SOURCE_OPTIONS                                                                      \
    {"lower", required_argument, NULL, CLI_WB_OPT_LOWER},                                          \
        {"upper", required_argument, NULL, CLI_WB_OPT_UPPER},                                      \
        {"format", required_argument, NULL, CLI_WB_OPT_FORMAT},                                    \
    {                                                                                              \
        "deny-content", required_argument, NULL, CLI_WB_OPT_DENY                                   \
    }

/* A command-line mistake: cli_usage_error (an unknown option named). */
void cli_wb_usage(const char *cmd, const char *what);

/* Take one of the source options; false when c is not one of them. */
bool cli_wb_option(struct wb_job_source *o, int c, const char *arg);

/* The ID operand or the pair, exactly one: returns the id (NULL for the
 * pair), or reports and sets *bad. */
const char *cli_wb_source_operand(const char *cmd, const struct wb_job_source *o, int argc,
                                  char **argv, int *next, bool *bad);

#endif
