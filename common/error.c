#include "common/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rr_fail(struct rr_error *err, int errnum, const char *fmt, ...)
{
    va_list ap;

    err->errnum = errnum;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return -1;
}

int rr_wrap(struct rr_error *err, const char *fmt, ...)
{
    char prefix[RR_ERROR_MSG_MAX];
    size_t plen, mlen;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    plen = strlen(prefix);
    mlen = strlen(err->msg);
    /* Keep as much of the prefix as fits with ": " in front of the old
     * message; when the chain is too long, the old message's tail is cut. */
    if (plen + 2 >= sizeof(err->msg))
        plen = sizeof(err->msg) - 3;
    if (plen + 2 + mlen >= sizeof(err->msg))
        mlen = sizeof(err->msg) - plen - 3;
    memmove(err->msg + plen + 2, err->msg, mlen);
    err->msg[plen + 2 + mlen] = '\0';
    memcpy(err->msg, prefix, plen);
    err->msg[plen] = ':';
    err->msg[plen + 1] = ' ';
    return -1;
}

const char *rr_error_text(const struct rr_error *err, char *buf, size_t len)
{
    if (err->errnum != 0)
        snprintf(buf, len, "%s: %s", err->msg, strerror(err->errnum));
    else
        snprintf(buf, len, "%s", err->msg);
    return buf;
}

void rr_error_clear(struct rr_error *err)
{
    err->errnum = 0;
    err->msg[0] = '\0';
}
