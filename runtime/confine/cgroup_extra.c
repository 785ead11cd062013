/* An engine container in every cgroup hierarchy the host mounts, as runc
 * places it, not only in those where revrun writes a limit (cgroup.c has
 * memory, pids and cpu): on a v1 or hybrid host each other v1 hierarchy
 * (cpuacct, blkio, cpuset, freezer, perf_event, hugetlb, net_cls,
 * name=systemd, ...) and the hybrid's unified v2 hierarchy. A kubelet's
 * pod is a cgroup parent whose ceilings and accounting hold for what is
 * below it: a container outside one of its hierarchies escapes that
 * controller's ceiling, and the engine reads the container's statistics
 * from the cgroups its process is in. devices is cgroup_devices.c's. */
#include "runtime/confine/cgroup_extra.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/libmnt.h"

#define EXTRA_MAX 16

struct extra {
    size_t n;
    char mnt[EXTRA_MAX][PATH_MAX];
    bool cpuset[EXTRA_MAX];
};

/* Hierarchies cgroup.c or cgroup_devices.c own. */
static bool owned_elsewhere(const char *opts)
{
    static const char *const names[] = {"memory", "pids", "cpu", "devices"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (mnt_optstr_get_option(opts, names[i], NULL, NULL) == 0)
            return true;
    return false;
}

static bool seen(const struct extra *x, const char *target)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->mnt[i], target) == 0)
            return true;
    return false;
}

static void add(struct extra *x, const char *target, bool cpuset)
{
    if (x->n == EXTRA_MAX || seen(x, target))
        return;
    snprintf(x->mnt[x->n], sizeof(x->mnt[x->n]), "%s", target);
    x->cpuset[x->n++] = cpuset;
}

/* The other hierarchies; with_v2: the cgroup2 mount too (a hybrid host,
 * whose limits are v1's). The first mount of each. */
static int find_extra(struct extra *x, bool with_v2, struct rr_error *err)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;
    char v1_seen[EXTRA_MAX][256];
    size_t n_seen = 0;

    x->n = 0;
    if (rr_libmnt_load(err) < 0)
        return -1;
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);
    while (tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *type = mnt_fs_get_fstype(fs), *target = mnt_fs_get_target(fs);
        const char *opts = mnt_fs_get_fs_options(fs);
        bool dup = false;
        if (type == NULL || target == NULL)
            continue;
        if (strcmp(type, "cgroup2") == 0 && with_v2) {
            add(x, target, false);
            with_v2 = false;
            continue;
        }
        if (strcmp(type, "cgroup") != 0 || opts == NULL || owned_elsewhere(opts))
            continue;
        /* the same hierarchy mounted twice is one */
        for (size_t i = 0; i < n_seen; i++)
            dup = dup || strcmp(v1_seen[i], opts) == 0;
        if (dup || n_seen == EXTRA_MAX)
            continue;
        snprintf(v1_seen[n_seen++], sizeof(v1_seen[0]), "%s", opts);
        add(x, target, mnt_optstr_get_option(opts, "cpuset", NULL, NULL) == 0);
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
    return 0;
}

/* v1 cpuset: a new cgroup has no cpus or memory nodes of its own and takes
 * no task until given some: each level below the hierarchy's root that has
 * none gets its parent's, as runc does. */
static int cpuset_fill(const char *mnt, const char *path, struct rr_error *err)
{
    _cleanup_close_ int dir = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char name[PATH_MAX], cpus[4096], mems[4096];
    const char *p = path;

    if (dir < 0)
        return rr_fail(err, errno, "cgroup %s", mnt);
    while (*p != '\0') {
        size_t n;
        while (*p == '/')
            p++;
        if ((n = strcspn(p, "/")) == 0 || n >= sizeof(name))
            break;
        snprintf(name, sizeof(name), "%.*s", (int)n, p);
        p += n;
        if (cg_read(dir, "cpuset.cpus", cpus, sizeof(cpus)) < 0 ||
            cg_read(dir, "cpuset.mems", mems, sizeof(mems)) < 0)
            return rr_fail(err, errno, "cgroup %s%s: cpuset", mnt, path);
        int child = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child < 0)
            return rr_fail(err, errno, "cgroup %s%s", mnt, path);
        close(dir);
        dir = child;
        char own[16];
        if (cg_read(dir, "cpuset.cpus", own, sizeof(own)) == 0 && own[0] == '\n' &&
            cg_write(dir, "cpuset.cpus", cpus, err) < 0)
            return -1;
        if (cg_read(dir, "cpuset.mems", own, sizeof(own)) == 0 && own[0] == '\n' &&
            cg_write(dir, "cpuset.mems", mems, err) < 0)
            return -1;
    }
    return 0;
}

int cgroup_extra_make(bool hybrid, const char *path, struct rr_error *err)
{
    struct extra x;
    size_t i;

    if (find_extra(&x, hybrid, err) < 0)
        return -1;
    for (i = 0; i < x.n; i++) {
        int fd = cg_mkdir_leaf(x.mnt[i], path, err);
        if (fd < 0)
            break;
        close(fd);
        if (x.cpuset[i] && cpuset_fill(x.mnt[i], path, err) < 0) {
            i++;
            break;
        }
    }
    if (i == x.n)
        return 0;
    /* what this call made goes again; another container's stays */
    for (size_t k = 0; k < i; k++) {
        char dir[PATH_MAX * 2];
        snprintf(dir, sizeof(dir), "%s%s", x.mnt[k], path);
        rmdir(dir);
    }
    return rr_wrap(err, "the container's cgroup in every hierarchy");
}

int cgroup_extra_join(bool hybrid, const char *path, pid_t pid, struct rr_error *err)
{
    struct extra x;
    char text[32];

    if (find_extra(&x, hybrid, err) < 0)
        return -1;
    snprintf(text, sizeof(text), "%d", (int)pid);
    for (size_t i = 0; i < x.n; i++) {
        _cleanup_close_ int root = open(x.mnt[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int fd =
            root < 0 ? -1 : rr_open_in_root(root, path, O_PATH | O_DIRECTORY, true);
        /* opened, never made: only where cgroup_extra_make made it */
        if (fd < 0 && errno == ENOENT)
            continue;
        if (fd < 0 || cg_write(fd, "cgroup.procs", text, err) < 0)
            return rr_fail(err, errno, "join cgroup %s%s", x.mnt[i], path);
    }
    return 0;
}

void cgroup_extra_remove(bool hybrid, const char *path)
{
    struct extra x;
    struct rr_error ignored;

    if (find_extra(&x, hybrid, &ignored) < 0)
        return;
    for (size_t i = 0; i < x.n; i++) {
        if (cg_kill_and_rmdir(x.mnt[i], path, false, &ignored) == 0)
            cg_remove_empty_parents(x.mnt[i], path);
    }
}
