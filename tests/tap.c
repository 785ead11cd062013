#include "tests/tap.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define TAP_MAX_TESTS 1024

static struct {
    const char *name;
    tap_fn fn;
} tests[TAP_MAX_TESTS];
static int n_tests;
static bool current_failed;

void tap_register(const char *name, tap_fn fn)
{
    if (n_tests == TAP_MAX_TESTS) {
        fprintf(stderr, "tap: too many tests\n");
        abort();
    }
    tests[n_tests].name = name;
    tests[n_tests].fn = fn;
    n_tests++;
}

bool tap_check(bool ok, const char *expr, const char *file, int line)
{
    if (!ok) {
        printf("#   failed: %s (%s:%d)\n", expr, file, line);
        current_failed = true;
    }
    return ok;
}

void tap_note(const char *fmt, ...)
{
    va_list ap;

    printf("#   ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

int main(void)
{
    int failed = 0;

    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("1..%d\n", n_tests);
    for (int i = 0; i < n_tests; i++) {
        current_failed = false;
        tests[i].fn();
        printf("%s %d - %s\n", current_failed ? "not ok" : "ok", i + 1, tests[i].name);
        failed += current_failed;
    }
    return failed ? 1 : 0;
}
