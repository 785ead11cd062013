#include "common/dltable.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *loaded[DLIB_COUNT];

const char *dl_table_loaded(enum dlib lib)
{
    return __atomic_load_n(&loaded[lib], __ATOMIC_ACQUIRE);
}

/* One soname: the whole table or nothing (why, into reason). */
static void *open_one(const char *soname, const char *const names[], void **const slots[],
                      size_t n, char *reason, size_t len)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    size_t i;

    if (h == NULL) {
        const char *e = dlerror();
        snprintf(reason, len, "%s", e ? e : soname);
        return NULL;
    }
    for (i = 0; i < n; i++)
        if ((*slots[i] = dlsym(h, names[i])) == NULL)
            break;
    if (i == n)
        return h;
    for (size_t k = 0; k < n; k++)
        *slots[k] = NULL;
    dlclose(h);
    snprintf(reason, len, "%s has no %s", soname, names[i]);
    return NULL;
}

int dl_table_open(enum dlib lib, const char *const names[], void **const slots[], size_t n,
                  void **handle, struct rr_error *err)
{
    const struct dlib_info *d = dlib_info(lib);
    char first[512] = "", reason[512], tried[256], pkg[128];

    for (size_t i = 0; d->sonames[i] != NULL; i++) {
        bool dup = false;
        for (size_t k = 0; k < i; k++)
            dup = dup || strcmp(d->sonames[k], d->sonames[i]) == 0;
        if (dup)
            continue;
        *handle = open_one(d->sonames[i], names, slots, n, reason, sizeof(reason));
        if (*handle != NULL) {
            __atomic_store_n(&loaded[lib], d->sonames[i], __ATOMIC_RELEASE);
            return 0;
        }
        if (first[0] == '\0') /* the build's own soname: its reason is the one to show */
            snprintf(first, sizeof(first), "%s", reason);
    }
    dlib_sonames(lib, tried, sizeof(tried));
    dlib_package(lib, pkg, sizeof(pkg));
    return rr_fail(err, ELIBACC, "loading %s (%s): %s; %s needs it: install %s", d->name, tried,
                   first, d->needed_for, pkg);
}
