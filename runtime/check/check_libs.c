/* A row for each library revrun loads with dlopen (common/dlibs.h), loaded
 * as the stage that needs it would: a missing one fails the check, naming
 * the package, before a review spends an agent run on finding out. */
#include <stdio.h>

#include "common/dltable.h"
#include "egress/ossl.h"
#include "runtime/check/check.h"
#include "runtime/confine/libmnt.h"
#include "writeback/git/git2.h"

void check_libs(struct check_report *r)
{
    static int (*const load[DLIB_COUNT])(struct rr_error *) = {
        [DLIB_GIT2] = wb_git2_load,
        [DLIB_SSL] = eg_ossl_load,
        [DLIB_MOUNT] = rr_libmnt_load,
    };

    for (int i = 0; i < DLIB_COUNT; i++) {
        const struct dlib_info *d = dlib_info((enum dlib)i);
        struct rr_error err;
        char pkg[128], remedy[256];

        if (load[i](&err) == 0) {
            check_add(r, CHECK_OK, true, d->name, NULL, "%s, for %s", dl_table_loaded((enum dlib)i),
                      d->needed_for);
            continue;
        }
        dlib_package((enum dlib)i, pkg, sizeof(pkg));
        snprintf(remedy, sizeof(remedy), "install %s", pkg);
        check_add(r, CHECK_FAIL, true, d->name, remedy, "%s", err.msg);
    }
}
