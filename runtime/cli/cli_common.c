#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

char **cli_argv;

/* "revrun: CMD: MESSAGE": the log adds "revrun: " already, so the command
 * itself is named only when it is one. getopt is silent (opterr = 0), so an
 * unknown option is named here, where it also reaches --log. */
void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    char opt[128] = "";
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (strcmp(msg, "unknown option") == 0 && cli_argv != NULL && optind > 0) {
        if (optopt != 0 && optopt != '?')
            snprintf(opt, sizeof(opt), " '-%c'", optopt);
        else
            snprintf(opt, sizeof(opt), " '%s'", cli_argv[optind - 1]);
    }
    if (strcmp(cmd, "revrun") == 0)
        log_msg(LOG_ERROR, "%s%s (see 'revrun --help')", msg, opt);
    else
        log_msg(LOG_ERROR, "%s: %s%s (see 'revrun %s --help')", cmd, msg, opt, cmd);
}
