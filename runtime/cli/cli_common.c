#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

char **cli_argv;

/* getopt (opterr = 0) returns '?' both for an option it does not know and
 * for a known one given without its value: tell them apart and name it. A
 * long option known but valueless leaves optopt at its value code, which
 * is no letter the user typed. */
static void name_option(char *opt, size_t len, char *msg, size_t msglen)
{
    const char *arg = cli_argv[optind - 1];

    if (arg == NULL)
        return;
    if (strncmp(arg, "--", 2) == 0 && optopt != 0) {
        snprintf(msg, msglen, "option '%.64s' needs a value", arg);
        return;
    }
    if (strncmp(arg, "--", 2) != 0 && optopt != 0 && optopt != '?')
        snprintf(opt, len, " '-%c'", optopt);
    else
        snprintf(opt, len, " '%.100s'", arg);
}

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
    if (strcmp(msg, "unknown option") == 0 && cli_argv != NULL && optind > 0)
        name_option(opt, sizeof(opt), msg, sizeof(msg));
    if (strcmp(cmd, "revrun") == 0)
        log_msg(LOG_ERROR, "%s%s (see 'revrun --help')", msg, opt);
    else
        log_msg(LOG_ERROR, "%s: %s%s (see 'revrun %s --help')", cmd, msg, opt, cmd);
}

bool cli_no_options(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return true;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error(argv[0], "unknown option '%.100s'", argv[i]);
            return false;
        }
    }
    return true;
}
