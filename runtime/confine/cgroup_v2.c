/* cgroup v2: one directory; controllers enabled from the top down through
 * each ancestor's cgroup.subtree_control. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/cgroup.h"

/* Our own cgroup, from the "0::/path" line of /proc/self/cgroup. */
int cgroup_v2_own(char *out, size_t len, struct rr_error *err)
{
    char buf[4096];
    _cleanup_close_ int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    char *line;

    if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) < 0)
        return rr_fail(err, errno, "read /proc/self/cgroup");
    buf[n] = '\0';
    line = strstr(buf, "0::");
    if (line == NULL)
        return rr_fail(err, ENOENT, "no cgroup v2 entry in /proc/self/cgroup");
    line += 3;
    line[strcspn(line, "\n")] = '\0';
    snprintf(out, len, "%s", line);
    return 0;
}

static void controller_list(unsigned c, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s%s", (c & CG_MEMORY) ? "+memory " : "",
             (c & CG_PIDS) ? "+pids " : "", (c & CG_CPU) ? "+cpu " : "",
             (c & CG_CPUSET) ? "+cpuset" : "");
}

/* Enable controllers in every ancestor of path (not in path itself). */
static int enable_down(const char *mnt, const char *path, unsigned c, bool rootless,
                       struct rr_error *err)
{
    char prefix[PATH_MAX], list[64];
    size_t len = strlen(path);

    controller_list(c, list, sizeof(list));
    for (size_t i = 0; i <= len; i++) {
        if (i != 0 && path[i] != '/' && path[i] != '\0')
            continue;
        if (i == len)
            break; /* not the leaf */
        snprintf(prefix, sizeof(prefix), "%.*s", (int)i, path);
        _cleanup_close_ int fd = cg_mkdir(mnt, prefix[0] ? prefix : "/", err);
        if (fd < 0)
            return -1;
        if (cg_write(fd, "cgroup.subtree_control", list, err) < 0) {
            /* Above the delegated subtree a user cannot write; what is
             * enabled there already is what we get. */
            if (rootless && (err->errnum == EACCES || err->errnum == EPERM))
                continue;
            return rr_wrap(err, "enable controllers in %s", prefix[0] ? prefix : "/");
        }
    }
    return 0;
}

static int write_limits(int fd, unsigned have, const struct rr_resources *r,
                        struct rr_error *err)
{
    char v[64];

    if ((have & CG_MEMORY) && r->memory_limit != RR_UNSET) {
        snprintf(v, sizeof(v), "%lld", (long long)r->memory_limit);
        if (cg_write(fd, "memory.max", v, err) < 0)
            return -1;
        /* OCI's swap is memory+swap; v2 counts swap alone. */
        snprintf(v, sizeof(v), "%lld",
                 (long long)(r->memory_swap != RR_UNSET ? r->memory_swap - r->memory_limit : 0));
        if (faccessat(fd, "memory.swap.max", F_OK, 0) == 0 &&
            cg_write(fd, "memory.swap.max", v, err) < 0)
            return -1;
    }
    if ((have & CG_PIDS) && r->pids_limit != RR_UNSET) {
        snprintf(v, sizeof(v), "%lld", (long long)r->pids_limit);
        if (cg_write(fd, "pids.max", v, err) < 0)
            return -1;
    }
    /* an engine's cpu.shares as v2's weight, runc's conversion (2..262144
     * onto 1..10000) */
    if ((have & CG_CPU) && r->cpu_shares > 0) {
        long long s = r->cpu_shares < 2 ? 2 : r->cpu_shares > 262144 ? 262144 : r->cpu_shares;
        snprintf(v, sizeof(v), "%lld", 1 + ((s - 2) * 9999) / 262142);
        if (cg_write(fd, "cpu.weight", v, err) < 0)
            return rr_wrap(err, "linux.resources.cpu.shares");
    }
    if ((have & CG_CPU) && r->cpu_quota != RR_UNSET) {
        snprintf(v, sizeof(v), "%lld %lld", (long long)r->cpu_quota,
                 (long long)(r->cpu_period != RR_UNSET ? r->cpu_period : 100000));
        if (cg_write(fd, "cpu.max", v, err) < 0)
            return -1;
    }
    return 0;
}

static unsigned controllers_of(int fd)
{
    char buf[512];
    unsigned c = 0;

    if (cg_read(fd, "cgroup.controllers", buf, sizeof(buf)) < 0)
        return 0;
    if (strstr(buf, "memory") != NULL)
        c |= CG_MEMORY;
    if (strstr(buf, "pids") != NULL)
        c |= CG_PIDS;
    if (strstr(buf, "cpu ") != NULL || strstr(buf, "cpu\n") != NULL ||
        (strlen(buf) >= 3 && strcmp(buf + strlen(buf) - 3, "cpu") == 0))
        c |= CG_CPU;
    if (strstr(buf, "cpuset") != NULL)
        c |= CG_CPUSET;
    return c;
}

int cgroup_v2_create(const struct cgroup_host *h, const struct profile *p, unsigned want,
                     struct cgroup_plan *cg, struct rr_error *err)
{
    unsigned avail = want & h->v2_controllers;
    _cleanup_close_ int fd = -1;

    /* A read-only or undelegated hierarchy, or controllers that cannot be
     * enabled (an ancestor with processes of its own: the root of a
     * container's cgroup namespace): judged by revrun.bestEffort. */
    if (avail != 0 && enable_down(h->v2_mount, cg->path, avail, p->rootless, err) < 0)
        return cg_unwritable(err) ? cg_unavailable(cg, err) : -1;
    fd = cg_mkdir_leaf(h->v2_mount, cg->path, err);
    if (fd < 0)
        return cg_unwritable(err) ? cg_unavailable(cg, err) : -1;
    cg->version = CG_V2;
    /* Only what the new cgroup really offers counts. */
    cg->controllers = controllers_of(fd) & want;
    return write_limits(fd, cg->controllers, &p->resources, err);
}
