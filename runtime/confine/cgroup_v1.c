/* cgroup v1: one directory per controller hierarchy (memory, pids, cpu). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/cgroup.h"

static int write_limits(int fd, int i, const struct profile *p, struct rr_error *err)
{
    const struct rr_resources *r = &p->resources;
    char v[32];

    if (i == 0) {
        /* an engine's disableOOMKiller: the container's tasks wait at the
         * limit instead of being killed (still bounded by it) */
        if (p->engine && r->disable_oom_killer && cg_write(fd, "memory.oom_control", "1", err) < 0)
            return rr_wrap(err, "linux.resources.memory.disableOOMKiller");
        if (r->memory_limit == RR_UNSET)
            return 0;
        snprintf(v, sizeof(v), "%lld", (long long)r->memory_limit);
        if (cg_write(fd, "memory.limit_in_bytes", v, err) < 0)
            return -1;
        /* TCP buffers: a counter of their own in v1, active once limited.
         * Absent where the kernel has no kmem accounting (`check` says the
         * buffers are unbounded there). */
        snprintf(v, sizeof(v), "%lld", (long long)p->tcp_memory_limit);
        if (p->tcp_memory_limit != RR_UNSET &&
            faccessat(fd, CGROUP_V1_TCP_LIMIT, F_OK, 0) == 0 &&
            cg_write(fd, CGROUP_V1_TCP_LIMIT, v, err) < 0)
            return -1;
        /* memory+swap: the same as the limit unless swap was given, so the
         * agent cannot swap its way past the ceiling. Absent without swap
         * accounting, where there is no swap to count. */
        snprintf(v, sizeof(v), "%lld",
                 (long long)(r->memory_swap != RR_UNSET ? r->memory_swap : r->memory_limit));
        if (faccessat(fd, "memory.memsw.limit_in_bytes", F_OK, 0) == 0 &&
            cg_write(fd, "memory.memsw.limit_in_bytes", v, err) < 0)
            return -1;
        return 0;
    }
    if (i == 1) {
        if (r->pids_limit == RR_UNSET)
            return 0; /* placed only (an engine container) */
        snprintf(v, sizeof(v), "%lld", (long long)r->pids_limit);
        return cg_write(fd, "pids.max", v, err);
    }
    if (p->engine && r->cpu_shares > 0) {
        snprintf(v, sizeof(v), "%lld", (long long)r->cpu_shares);
        if (cg_write(fd, "cpu.shares", v, err) < 0)
            return rr_wrap(err, "linux.resources.cpu.shares");
    }
    if (r->cpu_quota == RR_UNSET)
        return 0;
    snprintf(v, sizeof(v), "%lld", (long long)(r->cpu_period != RR_UNSET ? r->cpu_period : 100000));
    if (cg_write(fd, "cpu.cfs_period_us", v, err) < 0)
        return -1;
    snprintf(v, sizeof(v), "%lld", (long long)r->cpu_quota);
    return cg_write(fd, "cpu.cfs_quota_us", v, err);
}

/* Remove the (still empty) directories this create made, and disown the
 * plan, so that cleaning up after the failure removes nothing else. */
static void forget_own(const struct cgroup_host *h, struct cgroup_plan *cg)
{
    for (int i = 0; i < 3; i++) {
        char path[PATH_MAX];
        if (!(cg->controllers & (1u << i)))
            continue;
        snprintf(path, sizeof(path), "%s%s", h->v1_mount[i], cg->path);
        rmdir(path);
    }
    cg->controllers = 0;
    cg->version = CG_NONE;
}

void cgroup_v1_disown(struct cgroup_plan *cg)
{
    struct cgroup_host h;
    struct rr_error ignored;

    if (cg->version != CG_V1)
        return;
    if (cgroup_host_probe(&h, &ignored) < 0) {
        cg->controllers = 0;
        cg->version = CG_NONE;
        return;
    }
    forget_own(&h, cg);
}

int cgroup_v1_create(const struct cgroup_host *h, const struct profile *p, unsigned want,
                     struct cgroup_plan *cg, struct rr_error *err)
{
    cg->version = CG_V1;
    for (int i = 0; i < 3; i++) {
        if (!(want & (1u << i)) || h->v1_mount[i][0] == '\0')
            continue;
        _cleanup_close_ int fd = cg_mkdir_leaf(h->v1_mount[i], cg->path, err);
        /* Not delegated to us, or a read-only cgroupfs (revrun inside a
         * container): judged as unavailable, by revrun.bestEffort. */
        if (fd < 0 && cg_unwritable(err)) {
            if (cg->why[0] == '\0') {
                rr_error_text(err, cg->why, sizeof(cg->why));
                cg->why_errno = err->errnum;
            }
            continue;
        }
        if (fd < 0 && err->errnum == EEXIST)
            forget_own(h, cg); /* someone else's: remove ours, touch nothing of theirs */
        if (fd < 0)
            return -1;
        cg->controllers |= 1u << i;
        if (write_limits(fd, i, p, err) < 0)
            return -1;
    }
    if (cg->controllers == 0)
        cg->version = CG_NONE;
    return 0;
}
