/* The libraries loaded with dlopen (common/dlibs.c, common/dltable.c):
 * libgit2 is tried by every soname whose ABI was compared, each name once;
 * a library that lacks a function is refused whole, the table left empty,
 * and the error names what needs it and the package to install; the
 * built-in presets are the ones agents/ ships. */
#include <string.h>

#include "bundle/preset.h"
#include "bundle/preset_builtin.h"
#include "common/dltable.h"
#include "tests/tap.h"

TEST(libgit2_is_found_by_both_distributions_sonames)
{
    char buf[256];

    dlib_sonames(DLIB_GIT2, buf, sizeof(buf));
    CHECK(strstr(buf, "libgit2.so.1.5") != NULL && strstr(buf, "libgit2.so.1.7") != NULL);
    /* each soname once, however the build's own one repeats a listed one */
    CHECK(strstr(strstr(buf, "libgit2.so.1.5") + 1, "libgit2.so.1.5") == NULL);
    dlib_sonames(DLIB_SSL, buf, sizeof(buf));
    CHECK(strcmp(buf, "libssl.so.3") == 0);
    dlib_sonames(DLIB_MOUNT, buf, sizeof(buf));
    CHECK(strcmp(buf, "libmount.so.1") == 0);
}

TEST(every_library_names_a_package_per_distribution)
{
    char pkg[128];

    for (int i = 0; i < DLIB_COUNT; i++) {
        const struct dlib_info *d = dlib_info((enum dlib)i);
        CHECK(d->pkg_debian12 != NULL && d->pkg_ubuntu2404 != NULL && d->needed_for != NULL);
        dlib_package((enum dlib)i, pkg, sizeof(pkg));
        CHECK(strstr(pkg, d->pkg_debian12) != NULL || strstr(pkg, d->pkg_ubuntu2404) != NULL);
    }
}

TEST(a_library_without_a_function_is_refused_whole)
{
    static const char *const names[] = {"mnt_new_iter", "revrun_no_such_function"};
    void *a = (void *)1, *b = (void *)1, *handle = NULL;
    void **const slots[] = {&a, &b};
    struct rr_error err;

    CHECK(dl_table_open(DLIB_MOUNT, names, slots, 2, &handle, &err) < 0);
    CHECK(a == NULL && b == NULL && handle == NULL);
    CHECK(strstr(err.msg, "has no revrun_no_such_function") != NULL);
    CHECK(strstr(err.msg, "install libmount1") != NULL);
}

TEST(a_library_with_its_functions_loads_and_says_by_which_soname)
{
    static const char *const names[] = {"mnt_new_iter"};
    void *a = NULL, *handle = NULL;
    void **const slots[] = {&a};
    struct rr_error err;

    CHECK(dl_table_open(DLIB_MOUNT, names, slots, 1, &handle, &err) == 0);
    CHECK(a != NULL && handle != NULL);
    CHECK(dl_table_loaded(DLIB_MOUNT) != NULL &&
          strcmp(dl_table_loaded(DLIB_MOUNT), "libmount.so.1") == 0);
}

TEST(the_built_in_presets_are_agents_and_parse)
{
    struct rr_preset p;
    struct rr_error err;

    CHECK(preset_builtins_n >= 3);
    for (size_t i = 0; i < preset_builtins_n; i++) {
        /* the unit test binary has no agents/ near it: the built-in copy */
        CHECK(preset_load(preset_builtins[i].name, &p, &err) == 0);
        CHECK(p.name != NULL && strcmp(p.name, preset_builtins[i].name) == 0);
        preset_free(&p);
    }
}
