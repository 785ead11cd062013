/* libFuzzer harness for the git-config reader of the checkout check
 * (runtime/confine/git_config_parse.c, git_config_secrets.c): arbitrary
 * bytes as a config file. Beyond "no crash, no leak, no UB" (the
 * sanitizers) it asserts that the entry walk ends, every entry's name lies
 * in the text, and a secret's description is text of revrun's (never longer
 * than its buffer, never empty). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/confine/git_config_secrets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "gitconfig_fuzz: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const struct lower_view v = {"/src", "/repos/main/.git", "/src/home"};
    struct lgc_cursor cur = {0};
    struct git_config_entry e;
    struct lgc_include_cursor inc = {0};
    char value[64], what[600];
    unsigned line, steps = 0;

    while (lgc_next(text, size, &cur, &e, value, sizeof(value)) > 0) {
        must(e.name >= text && e.name + e.name_len <= text + size, "name outside the text");
        must(strlen(value) < sizeof(value), "value past its buffer");
        must(++steps <= size, "the walk does not end");
    }
    if (lgc_has_credential(text, size, &v, &line, what, sizeof(what)))
        must(what[0] != '\0' && line >= 1, "a secret without a description or line");
    steps = 0;
    while (lgc_next_include(text, size, &inc, &line, value, sizeof(value)) != 0)
        must(++steps <= size, "the include walk does not end");
    return 0;
}
