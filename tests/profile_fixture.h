/* The fixture of test_profile.c and test_profile_mounts.c: the default
 * spec over a temporary checkout, changed in one place and judged by
 * profile_build. Included by those two only. */
#ifndef REVRUN_TESTS_PROFILE_FIXTURE_H
#define REVRUN_TESTS_PROFILE_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/confine/profile/profile.h"
#include "tests/tap.h"

static char lower[] = "/tmp/revrun-test-profile.XXXXXX";
static struct rr_config cfg;
static struct profile prof;
static struct rr_error err;
static bool built;

/* A fresh default config; rootless picks the identity the spec writes. */
/* A host directory of no importance, for binds (read-write ones of system
 * trees or of the checkout are refused). */
static const char *hostdir(void)
{
    static char dir[] = "/tmp/revrun-test-host.XXXXXX";

    if (dir[sizeof(dir) - 2] == 'X' && mkdtemp(dir) == NULL)
        tap_note("mkdtemp failed");
    return dir;
}

static void fresh(bool rootless)
{
    if (built)
        profile_free(&prof);
    built = false;
    config_free(&cfg);
    if (lower[sizeof(lower) - 2] == 'X' && mkdtemp(lower) == NULL)
        tap_note("mkdtemp failed");
    if (profile_default_config(&cfg, lower, rootless, &err) < 0)
        tap_note("default config: %s", err.msg);
}

static int build(bool rootless)
{
    if (built)
        profile_free(&prof);
    err = (struct rr_error){0};
    built = profile_build(&cfg, rootless, &prof, &err) == 0;
    return built ? 0 : -1;
}

static bool refused(bool rootless, const char *want)
{
    if (build(rootless) == 0) {
        tap_note("accepted (wanted \"%s\")", want);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return true;
}

static bool accepted(bool rootless)
{
    if (build(rootless) < 0) {
        tap_note("refused: %s", err.msg);
        return false;
    }
    return true;
}

/* Append a mount; opts is NULL-terminated. Returns its index. */
static size_t add_mount(const char *dest, const char *type, const char *src,
                        const char *const *opts)
{
    struct rr_mount *m = realloc(cfg.mounts, (cfg.n_mounts + 1) * sizeof(*m));

    if (m == NULL)
        abort();
    cfg.mounts = m;
    m = &cfg.mounts[cfg.n_mounts];
    *m = (struct rr_mount){
        .destination = strdup(dest), .type = strdup(type), .source = src ? strdup(src) : NULL};
    for (; opts != NULL && *opts != NULL; opts++)
        strv_push(&m->options, *opts);
    return cfg.n_mounts++;
}

#endif
