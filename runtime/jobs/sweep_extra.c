/* The parts of sweep beyond state directories: cgroups that outlived their
 * container, and exported change sets past their retention age. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/state.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/cgroup.h"
#include "runtime/container/container.h"
#include "runtime/jobs/sweep.h"

static void note(struct sweep_report *rep, const char *what, const char *a, const char *b)
{
    snprintf(rep->lines[rep->n % SWEEP_MAX_LINES], sizeof(rep->lines[0]), "%s %s/%s", what, a, b);
    rep->n++;
}

/* Remove the children of mnt+dir that have no state directory. */
static int sweep_hierarchy(const char *mnt, const char *dir, bool v2, int rootfd,
                           struct sweep_report *rep, struct rr_error *err)
{
    char path[PATH_MAX];
    struct dirent *de;
    DIR *d;

    snprintf(path, sizeof(path), "%s%s", mnt, dir);
    d = opendir(path);
    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        char rel[PATH_MAX];
        if (de->d_type != DT_DIR || !rr_id_valid(de->d_name) ||
            faccessat(rootfd, de->d_name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
            continue;
        snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name);
        if (cg_kill_and_rmdir(mnt, rel, v2, err) < 0) {
            closedir(d);
            return -1;
        }
        note(rep, "removed orphan cgroup", mnt, rel);
    }
    closedir(d);
    return 0;
}

int sweep_orphan_cgroups(const struct rr_ctx *ctx, struct sweep_report *rep,
                         struct rr_error *err)
{
    struct cgroup_host h;
    char root[PATH_MAX], scope[32], dir[PATH_MAX];
    _cleanup_close_ int rootfd = -1;

    if (realpath(ctx->root, root) == NULL)
        return 0; /* no state root: nothing of ours to judge by */
    rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return 0;
    cgroup_scope_of(root, scope, sizeof(scope));
    cgroup_host_probe(&h, err);
    if (h.preferred == CG_V2) {
        if (cgroup_scope_dir(CG_V2, ctx->rootless, scope, dir, sizeof(dir), err) == 0 &&
            sweep_hierarchy(h.v2_mount, dir, true, rootfd, rep, err) < 0)
            return -1;
        return 0;
    }
    if (cgroup_scope_dir(CG_V1, ctx->rootless, scope, dir, sizeof(dir), err) < 0)
        return 0;
    for (int i = 0; i < 3; i++)
        if (h.v1_mount[i][0] != '\0' &&
            sweep_hierarchy(h.v1_mount[i], dir, false, rootfd, rep, err) < 0)
            return -1;
    return 0;
}

int sweep_exports(const struct sweep_opts *o, struct sweep_report *rep, struct rr_error *err)
{
    _cleanup_close_ int dfd = open(o->exports, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent *de;
    DIR *d;
    time_t now = time(NULL);

    if (dfd < 0)
        return rr_fail(err, errno, "--exports %s", o->exports);
    d = fdopendir(dfd);
    if (d == NULL)
        return rr_fail(err, errno, "--exports %s", o->exports);
    dfd = -1;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        _cleanup_close_ int sub = -1;
        if (de->d_name[0] == '.')
            continue;
        sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        /* Only what looks like a change set revrun exported. */
        if (sub < 0 || fstatat(sub, "manifest.json", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
            !S_ISREG(st.st_mode) || now - st.st_mtime < (time_t)o->older_than_s)
            continue;
        if (rr_remove_tree(dirfd(d), de->d_name, err) < 0) {
            closedir(d);
            return -1;
        }
        note(rep, "removed change set past its retention:", o->exports, de->d_name);
    }
    closedir(d);
    return 0;
}
