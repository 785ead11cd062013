#include "runtime/cli/cli_wb.h"

#include <string.h>

void cli_wb_usage(const char *cmd, const char *what)
{
    cli_usage_error(cmd, "%s", what);
}

static bool format_known(const char *f)
{
    return strcmp(f, "overlay") == 0 || strcmp(f, "overlay-userxattr") == 0 ||
           strcmp(f, "fuse-overlayfs") == 0;
}

bool cli_wb_option(struct wb_job_source *o, int c, const char *arg)
{
    switch (c) {
    case CLI_WB_OPT_LOWER:
        o->lower = arg;
        return true;
    case CLI_WB_OPT_UPPER:
        o->upper = arg;
        return true;
    case CLI_WB_OPT_FORMAT:
        o->format = arg;
        return true;
    case CLI_WB_OPT_DENY:
        o->deny = arg;
        return true;
    default:
        return false;
    }
}

const char *cli_wb_source_operand(const char *cmd, const struct wb_job_source *o, int argc,
                                  char **argv, int *next, bool *bad)
{
    bool pair = o->lower || o->upper || o->format;

    *bad = false;
    if (pair && (!(o->lower && o->upper && o->format) || !format_known(o->format))) {
        cli_wb_usage(cmd, "a bare pair needs --lower DIR --upper DIR --format "
                          "overlay|overlay-userxattr|fuse-overlayfs");
        *bad = true;
        return NULL;
    }
    if (pair)
        return NULL;
    if (*next >= argc) {
        cli_wb_usage(cmd, "expected a container ID or --lower/--upper/--format");
        *bad = true;
        return NULL;
    }
    return argv[(*next)++];
}
