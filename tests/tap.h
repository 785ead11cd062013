/* A minimal TAP producer for the C unit tests: each TEST is one "ok" or
 * "not ok" line; CHECK records a failure with its file and line and goes on,
 * so one run reports every broken expectation of a test. */
#ifndef REVRUN_TAP_H
#define REVRUN_TAP_H

#include <stdbool.h>

typedef void (*tap_fn)(void);

void tap_register(const char *name, tap_fn fn);
bool tap_check(bool ok, const char *expr, const char *file, int line);
void tap_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define TEST(name)                                                                                 \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void tap_reg_##name(void)                                  \
    {                                                                                              \
        tap_register(#name, name);                                                                 \
    }                                                                                              \
    static void name(void)

#define CHECK(cond) tap_check((cond), #cond, __FILE__, __LINE__)

#endif
