/* revrun --bash-completion: the completion script, rendered from the usage
 * table like --help and the man page, so a flag added there completes too.
 * Per command: its flags, which of them take a value (a file or directory
 * is completed there, or the fixed words of a value such as table|json),
 * container IDs from `revrun list --quiet` where an ID goes, and files
 * after "--" (the agent's command line). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/preset_builtin.h"
#include "runtime/cli/usage.h"

/* Commands whose operand is a container ID. */
static const char *const id_commands[] = {"create", "start", "state", "kill",  "delete",
                                          "destroy", "exec", "ps",    "pause", "resume",
                                          "update", "diff", "export", "writeback", NULL};

/* A word of a flag's usage: "--bundle", or the value it takes ("DIR"). */
static size_t word(const char *s, const char **w)
{
    while (*s == ' ')
        s++;
    *w = s;
    return strcspn(s, " ,");
}

/* One "--flag VALUE" part of a usage line into flag and value (may be
 * empty). Returns the rest of the line after ", ", or NULL at its end. */
static const char *part(const char *s, char *flag, size_t flen, char *val, size_t vlen)
{
    const char *w, *end = strstr(s, ", ");
    size_t n = word(s, &w);

    snprintf(flag, flen, "%.*s", (int)n, w);
    val[0] = '\0';
    if (w[n] == ' ' && (end == NULL || w + n < end)) {
        size_t m = end ? (size_t)(end - (w + n + 1)) : strlen(w + n + 1);
        snprintf(val, vlen, "%.*s", (int)m, w + n + 1);
    }
    return end ? end + 2 : NULL;
}

/* "table|json": fixed words (lower case, |-separated), as a word list. */
static bool choices(const char *val, char *out, size_t len)
{
    if (strchr(val, '|') == NULL)
        return false;
    for (const char *p = val; *p; p++)
        if (!islower((unsigned char)*p) && *p != '|' && *p != '-')
            return false;
    snprintf(out, len, "%s", val);
    for (char *p = out; *p; p++)
        if (*p == '|')
            *p = ' ';
    return true;
}

/* A value that names a file or directory: DIR, FILE, F, PATH, SRC:DST... */
static bool is_path(const char *val)
{
    static const char *const kinds[] = {"DIR", "FILE", "PATH", "SRC"};

    if (strcmp(val, "F") == 0)
        return true;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strstr(val, kinds[i]) != NULL)
            return true;
    return false;
}

/* revrun.bestEffort's names, space separated. */
static const char *best_effort_words(char *out, size_t len)
{
    snprintf(out, len, "%s", RR_BEST_EFFORT_NAMES);
    for (char *p = out, *q = out;; p++) {
        if (*p != ',')
            *q++ = *p;
        if (*p == '\0')
            break;
    }
    return out;
}

/* One flag: into the flags list, and a case arm of the values. An alias
 * pair ("--bundle DIR, -b DIR", "--env, -e NAME=VALUE") takes a value when
 * either spelling shows one. */
static void one_line(FILE *flags, FILE *values, const char *line)
{
    char f[8][64], v[8][64], words[128];
    size_t n = 0;
    bool alias;

    for (const char *s = line; s != NULL && n < 8; n++)
        s = part(s, f[n], sizeof(f[n]), v[n], sizeof(v[n]));
    alias = n == 2 && f[1][0] == '-' && f[1][1] != '-';
    if (alias && v[0][0] == '\0')
        memcpy(v[0], v[1], sizeof(v[0]));
    if (alias && v[1][0] == '\0')
        memcpy(v[1], v[0], sizeof(v[1]));
    for (size_t i = 0; i < n; i++) {
        if (f[i][0] != '-')
            continue;
        fprintf(flags, " %s", f[i]);
        if (v[i][0] == '\0')
            continue;
        if (strcmp(f[i], "--agent") == 0) {
            fprintf(values, "        %s) _revrun_words \"", f[i]);
            for (size_t k = 0; k < preset_builtins_n; k++)
                fprintf(values, "%s ", preset_builtins[k].name);
            fputs("\" -f; return ;;\n", values);
        } else if (strcmp(f[i], "--best-effort") == 0) {
            fprintf(values, "        %s) _revrun_words \"%s\"; return ;;\n", f[i],
                    best_effort_words(words, sizeof(words)));
        } else if (choices(v[i], words, sizeof(words))) {
            fprintf(values, "        %s) _revrun_words \"%s\"; return ;;\n", f[i], words);
        } else {
            /* a path, or a value only the user knows (a URL, a header) */
            fprintf(values, "        %s) %sreturn ;;\n", f[i], is_path(v[i]) ? "_revrun_files; " : "");
        }
    }
}

/* A command's (or the global) flags and value arms, from its table. */
struct rendered {
    char *flags, *values;
    size_t flen, vlen;
};

static int render(const struct usage_opt *o, struct rendered *r)
{
    FILE *flags = open_memstream(&r->flags, &r->flen);
    FILE *values = open_memstream(&r->values, &r->vlen);

    if (flags == NULL || values == NULL) {
        if (flags != NULL)
            fclose(flags);
        if (values != NULL)
            fclose(values);
        return -1;
    }
    for (; o->flag != NULL; o++)
        one_line(flags, values, o->flag);
    fclose(flags);
    fclose(values);
    return 0;
}

static void release(struct rendered *r)
{
    free(r->flags);
    free(r->values);
    *r = (struct rendered){0};
}

static const char head[] =
    "# bash completion for revrun: generated by `revrun --bash-completion` from\n"
    "# its usage table (runtime/cli/usage.c); do not edit.\n"
    "_revrun_words() {\n"
    "    local IFS=$' \\t\\n'\n"
    "    COMPREPLY=($(compgen -W \"$1\" ${2:+\"$2\"} -- \"$cur\"))\n"
    "}\n"
    "_revrun_files() {\n"
    "    local IFS=$'\\n'\n"
    "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
    "    compopt -o filenames 2>/dev/null\n"
    "}\n"
    "_revrun() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    local i j cmd= root= flags=\n"
    "    COMPREPLY=()\n"
    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
    "        case ${COMP_WORDS[i]} in\n"
    "        --root) root=${COMP_WORDS[i+1]}; ((i++)) ;;\n"
    "        --log | --log-format) ((i++)) ;;\n"
    "        -*) ;;\n"
    "        *) cmd=${COMP_WORDS[i]}; break ;;\n"
    "        esac\n"
    "    done\n"
    "    if [[ -z $cmd ]]; then\n"
    "        case $prev in\n";

static void print_ids_arm(FILE *out)
{
    fputs("    case $cmd in\n    ", out);
    for (size_t i = 0; id_commands[i] != NULL; i++)
        fprintf(out, "%s%s", i ? " | " : "", id_commands[i]);
    fputs(")\n        _revrun_words \"$(command revrun ${root:+--root \"$root\"} list --quiet "
          "2>/dev/null)\" ;;\n    *) _revrun_files ;;\n    esac\n}\n"
          "complete -F _revrun revrun\n",
          out);
}

void usage_print_bash(FILE *out)
{
    const struct usage_cmd *cmds;
    struct rendered g = {0}, c = {0};
    size_t n;

    cmds = usage_commands(&n);
    if (render(usage_global_options(), &g) < 0)
        return;
    fputs(head, out);
    fprintf(out, "%s        esac\n        if [[ $cur == -* ]]; then\n"
                 "            _revrun_words \"%s\"\n        else\n            _revrun_words \"",
            g.values, g.flags + 1);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? " " : "", cmds[i].name);
    fputs("\"\n        fi\n        return\n    fi\n"
          "    for ((j = i + 1; j < COMP_CWORD; j++)); do\n"
          "        [[ ${COMP_WORDS[j]} == -- ]] && { _revrun_files; return; }\n    done\n"
          "    case $cmd in\n",
          out);
    for (size_t i = 0; i < n; i++) {
        if (render(cmds[i].opts, &c) < 0)
            break;
        fprintf(out, "    %s)\n        case $prev in\n%s        esac\n        flags=\"%s\" ;;\n",
                cmds[i].name, c.values, c.flen ? c.flags + 1 : "");
        release(&c);
    }
    fputs("    esac\n    if [[ $cur == -* ]]; then\n        _revrun_words \"$flags --help\"\n"
          "        return\n    fi\n",
          out);
    print_ids_arm(out);
    release(&g);
}
