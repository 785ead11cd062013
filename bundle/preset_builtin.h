/* The agents/NAME.json files of the build, compiled in (scripts/gen-presets.sh
 * writes the table): a copied or installed binary has its presets with no
 * file beside it. A file of the same name near the binary overrides one. */
#ifndef REVRUN_PRESET_BUILTIN_H
#define REVRUN_PRESET_BUILTIN_H

#include <stddef.h>

struct preset_builtin {
    const char *name; /* NAME of agents/NAME.json */
    const char *text; /* its bytes */
    size_t len;
};

extern const struct preset_builtin preset_builtins[];
extern const size_t preset_builtins_n;

#endif
