/* The plan every judge fills (struct profile): the helpers they share,
 * and its release. */
#include "runtime/confine/profile/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pf_note(struct profile *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    return strv_push(&p->notes, line);
}
int pf_push_all(struct rr_strv *sv, const char *const *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strv_push(sv, items[i]) < 0)
            return -1;
    return 0;
}
bool pf_path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}
bool pf_env_has(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return true;
    return false;
}
const char *pf_env_value(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return env->v[i] + n + 1;
    return NULL;
}
bool profile_best_effort(const struct profile *p, const char *name)
{
    return strv_contains(p->best_effort, name);
}
void profile_free(struct profile *p)
{
    strv_free(&p->notes);
    strv_free(&p->eng.sysctl_inside);
    strv_free(&p->eng.device_rules);
    strv_free(&p->eng.sysctl_joined);
    for (size_t i = 0; i < p->n_mounts; i++)
        strv_free(&p->mounts[i].fs_options);
    free(p->mounts);
    p->mounts = NULL;
    p->n_mounts = 0;
    free(p->syscall_rules);
    p->syscall_rules = NULL;
    p->n_syscall_rules = 0;
    free(p->landlock_rules);
    p->landlock_rules = NULL;
    p->n_landlock_rules = 0;
    strv_free(&p->masked);
    strv_free(&p->readonly);
    strv_free(&p->env_owned);
}
