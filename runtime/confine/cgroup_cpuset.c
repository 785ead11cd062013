/* linux.resources.cpu.cpus and .mems (an engine's config): a cpuset is a
 * ceiling like the others: a list the kernel refuses (outside what the
 * parent cgroup allows, an offline CPU) or a host without the controller
 * refuses the container, naming which, and nothing is applied silently
 * short of what was asked. On v1 the cpuset hierarchy is one of
 * cgroup_extra.c's (the container placed in it with its parent's lists),
 * on v2 the controller is enabled down to the container's cgroup by
 * cgroup_v2_create (CG_CPUSET). */
#include "runtime/confine/cgroup_cpuset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/libmnt.h"

bool cgroup_cpuset_wanted(const struct rr_resources *r)
{
    return r->cpuset_cpus[0] != '\0' || r->cpuset_mems[0] != '\0';
}

/* Where the v1 cpuset hierarchy is mounted; "" when it is not. */
static int v1_cpuset_mount(char *out, size_t len, struct rr_error *err)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;

    out[0] = '\0';
    if (rr_libmnt_load(err) < 0)
        return -1;
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);
    while (out[0] == '\0' && tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *type = mnt_fs_get_fstype(fs), *target = mnt_fs_get_target(fs);
        const char *opts = mnt_fs_get_fs_options(fs);
        if (type != NULL && target != NULL && opts != NULL && strcmp(type, "cgroup") == 0 &&
            mnt_optstr_get_option(opts, "cpuset", NULL, NULL) == 0)
            snprintf(out, len, "%s", target);
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
    return 0;
}

/* One list into one file; the kernel's EINVAL said as what it means. */
static int write_list(int dir, const char *file, const char *key, const char *list,
                      struct rr_error *err)
{
    char parent[RR_CPUSET_MAX + 64] = "";

    if (list[0] == '\0' || cg_write(dir, file, list, err) == 0)
        return 0;
    if (err->errnum == EINVAL || err->errnum == ERANGE || err->errnum == ENOSPC) {
        _cleanup_close_ int up = openat(dir, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (up >= 0 && cg_read(up, file, parent, sizeof(parent)) == 0)
            parent[strcspn(parent, "\n")] = '\0';
        return rr_fail(err, err->errnum, "linux.resources.cpu.%s \"%s\": refused by the "
                                         "kernel (the parent cgroup allows \"%s\"; an "
                                         "offline or absent one is not taken)",
                       key, list, parent);
    }
    return rr_wrap(err, "linux.resources.cpu.%s", key);
}

static int write_lists(int dir, const struct rr_resources *r, struct rr_error *err)
{
    /* mems first: a v1 cpuset with cpus but no mems takes no task, and the
     * order is runc's */
    if (write_list(dir, "cpuset.mems", "mems", r->cpuset_mems, err) < 0 ||
        write_list(dir, "cpuset.cpus", "cpus", r->cpuset_cpus, err) < 0)
        return -1;
    return 0;
}

static int apply_v1(const struct cgroup_plan *cg, const struct rr_resources *r,
                    struct rr_error *err)
{
    char mnt[PATH_MAX];
    _cleanup_close_ int root = -1, dir = -1;

    if (v1_cpuset_mount(mnt, sizeof(mnt), err) < 0)
        return -1;
    if (mnt[0] == '\0' || !cg->extra)
        return rr_fail(err, EOPNOTSUPP, "linux.resources.cpu.cpus/mems: refused: this host "
                                        "mounts no cpuset hierarchy (see `revrun check`)");
    root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
    dir = root < 0 ? -1 : rr_open_in_root(root, cg->path, O_RDONLY | O_DIRECTORY, true);
    if (dir < 0)
        return rr_fail(err, errno, "cgroup %s%s", mnt, cg->path);
    return write_lists(dir, r, err);
}

static int apply_v2(const struct cgroup_host *h, const struct cgroup_plan *cg,
                    const struct rr_resources *r, struct rr_error *err)
{
    _cleanup_close_ int root = -1, dir = -1;

    if (!(cg->controllers & CG_CPUSET))
        return rr_fail(err, EOPNOTSUPP, "linux.resources.cpu.cpus/mems: refused: the cpuset "
                                        "controller cannot be enabled for %s on this host's "
                                        "cgroup v2 (see `revrun check`)", cg->path);
    root = open(h->v2_mount, O_PATH | O_DIRECTORY | O_CLOEXEC);
    dir = root < 0 ? -1 : rr_open_in_root(root, cg->path, O_RDONLY | O_DIRECTORY, true);
    if (dir < 0)
        return rr_fail(err, errno, "cgroup %s%s", h->v2_mount, cg->path);
    return write_lists(dir, r, err);
}

int cgroup_cpuset_apply(const struct cgroup_host *h, const struct rr_resources *r,
                        const struct cgroup_plan *cg, struct rr_error *err)
{
    if (!cgroup_cpuset_wanted(r))
        return 0;
    if (cg->version == CG_V1)
        return apply_v1(cg, r, err);
    if (cg->version == CG_V2)
        return apply_v2(h, cg, r, err);
    return rr_fail(err, EOPNOTSUPP, "linux.resources.cpu.cpus/mems: refused: no cgroup "
                                    "hierarchy to apply them in (%s)",
                   cg->why[0] ? cg->why : "none mounted");
}
