#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"

int strv_push(struct rr_strv *sv, const char *s)
{
    char **v;
    char *copy = strdup(s);

    if (copy == NULL)
        return -1;
    v = realloc(sv->v, (sv->n + 2) * sizeof(char *));
    if (v == NULL) {
        free(copy);
        errno = ENOMEM;
        return -1;
    }
    v[sv->n++] = copy;
    v[sv->n] = NULL; /* NULL-terminated so args/env can go to execve as is */
    sv->v = v;
    return 0;
}

void strv_free(struct rr_strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = 0;
}

bool strv_contains(const struct rr_strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

const char *strv_env_get(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return env->v[i] + n + 1;
    return NULL;
}
