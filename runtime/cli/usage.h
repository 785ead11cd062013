/* The one source of the usage text: `revrun --help`, `revrun CMD --help`
 * and the man page (`revrun --man`, rendered to roff by `make man` and
 * installed by `make install`) all print this table. */
#ifndef REVRUN_USAGE_H
#define REVRUN_USAGE_H

#include <stdbool.h>
#include <stdio.h>

struct usage_opt {
    const char *flag; /* "--bundle DIR" as typed */
    const char *text; /* one sentence */
};

struct usage_cmd {
    const char *name;
    const char *synopsis; /* what follows the name */
    const char *summary;  /* one line */
    const struct usage_opt *opts; /* ends with {NULL, NULL} */
    const char *notes;    /* NULL, or a paragraph */
};

/* The whole table, for what is rendered from it (usage_bash.c). */
const struct usage_cmd *usage_commands(size_t *n);
const struct usage_opt *usage_global_options(void);

/* revrun --bash-completion: a bash completion script of every command,
 * flag and fixed value in the table (usage_bash.c). */
void usage_print_bash(FILE *out);

/* NULL when name is no command. */
const struct usage_cmd *usage_find(const char *name);

/* revrun --help (to out) */
void usage_print_all(FILE *out);
/* revrun CMD --help */
void usage_print_cmd(FILE *out, const struct usage_cmd *c);
/* revrun --man: the whole table as roff (man(7)). */
void usage_print_man(FILE *out);

/* Does argv (argv[0] the command) ask for help? Looks at options up to
 * "--", and for commands that take a command line (exec's inline form)
 * up to the first operand. */
bool usage_wants_help(int argc, char **argv);

#endif
