#include "writeback/git/git2.h"

#include <stddef.h>

#include "common/dltable.h"

static struct wb_git2 table;
static void *handle;

int wb_git2_load(struct rr_error *err)
{
#define WB_GIT2_SLOT(name) (void **)&table.name,
    static const char *const names[] = {WB_GIT2_FUNCS(DL_TABLE_NAME)};
    void **const slots[] = {WB_GIT2_FUNCS(WB_GIT2_SLOT)};
#undef WB_GIT2_SLOT

    if (handle != NULL)
        return 0;
    return dl_table_open(DLIB_GIT2, names, slots, sizeof(names) / sizeof(names[0]), &handle,
                         err);
}

const struct wb_git2 *wb_git2_acquire(struct rr_error *err)
{
    static const int levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                 GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA};

    if (wb_git2_load(err) < 0)
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

const struct wb_git2 *wb_git2_acquire_operator(struct rr_error *err)
{
    static const int levels[] = {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                 GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA};
    const struct wb_git2 *g2 = wb_git2_acquire(err);

    if (g2 == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (g2->git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, levels[i], NULL) < 0) {
            wb_git2_release(g2);
            rr_fail(err, 0, "libgit2: restoring the config search path failed");
            return NULL;
        }
    if (g2->git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0) < 0) {
        wb_git2_release(g2);
        rr_fail(err, 0, "libgit2: turning the owner check off failed");
        return NULL;
    }
    return g2;
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
