#include "writeback/git2.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

static struct wb_git2 table;
static void *handle;

static int load(struct rr_error *err)
{
    const char *missing = NULL;

    if (handle != NULL)
        return 0;
    /* RTLD_LOCAL: its symbols stay out of everything else's way. */
    if ((handle = dlopen(WB_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return rr_fail(err, ENOENT, "loading libgit2 (%s): %s", WB_LIBGIT2_SONAME, dlerror());
#define WB_GIT2_LOAD(name)                                                                         \
    if ((*(void **)&table.name = dlsym(handle, #name)) == NULL && missing == NULL)                \
        missing = #name;
    WB_GIT2_FUNCS(WB_GIT2_LOAD)
#undef WB_GIT2_LOAD
    if (missing != NULL) {
        dlclose(handle);
        handle = NULL;
        return rr_fail(err, ENOENT, "libgit2 (%s) has no %s", WB_LIBGIT2_SONAME, missing);
    }
    return 0;
}

const struct wb_git2 *wb_git2_acquire(struct rr_error *err)
{
    static const int levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                 GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA};

    if (load(err) < 0)
        return NULL;
    if (table.git_libgit2_init() < 0) {
        rr_fail(err, 0, "libgit2: init failed");
        return NULL;
    }
    /* Process-wide; only write-back uses libgit2. */
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (table.git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, levels[i], "") < 0) {
            table.git_libgit2_shutdown();
            rr_fail(err, 0, "libgit2: clearing the config search path failed");
            return NULL;
        }
    return &table;
}

void wb_git2_release(const struct wb_git2 *g2)
{
    if (g2 != NULL)
        g2->git_libgit2_shutdown();
}

const char *wb_git2_error(const struct wb_git2 *g2)
{
    const git_error *e = g2->git_error_last();

    return e && e->message ? e->message : "?";
}
