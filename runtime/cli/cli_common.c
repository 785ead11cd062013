#include <stdarg.h>
#include <stdio.h>

#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_msg(LOG_ERROR, "%s: %s (see 'revrun --help')", cmd, msg);
}

