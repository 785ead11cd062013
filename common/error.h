/* Error objects: every fallible function returns a negative value and fills
 * a struct rr_error with the errno and a message that carries context.
 * Callers either return the error as is, or wrap it with more context
 * (rr_wrap) and return it; exactly one place (the CLI) reports it.
 * Nothing below the CLI calls exit(). */
#ifndef REVRUN_ERROR_H
#define REVRUN_ERROR_H

#include <stddef.h>

#define RR_ERROR_MSG_MAX 2048

struct rr_error {
    int errnum;                 /* errno value, 0 when the failure is not a syscall's */
    char msg[RR_ERROR_MSG_MAX]; /* outermost context first, ": " separated */
};

/* Fill *err and return -1. errnum may be 0. */
int rr_fail(struct rr_error *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prefix "context: " to the message already in *err; returns -1. */
int rr_wrap(struct rr_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "message: strerror(errnum)" into buf (the errno text only when errnum != 0). */
const char *rr_error_text(const struct rr_error *err, char *buf, size_t len);

/* Reset to "no error". */
void rr_error_clear(struct rr_error *err);

#endif
