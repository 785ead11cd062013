#include "common/dltable.h"

#include <dlfcn.h>
#include <errno.h>

int dl_table_open(const char *soname, const char *what, const char *const names[],
                  void **const slots[], size_t n, void **handle, struct rr_error *err)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    size_t i;

    if (h == NULL)
        return rr_fail(err, ENOENT, "loading %s (%s): %s", what, soname, dlerror());
    for (i = 0; i < n; i++)
        if ((*slots[i] = dlsym(h, names[i])) == NULL)
            break;
    if (i < n) {
        for (size_t k = 0; k < n; k++)
            *slots[k] = NULL;
        dlclose(h);
        return rr_fail(err, ENOENT, "%s (%s) has no %s", what, soname, names[i]);
    }
    *handle = h;
    return 0;
}
