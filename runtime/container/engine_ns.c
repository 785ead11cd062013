/* The namespaces an engine container joins by path (see engine_ns.h). */
#include "runtime/container/engine_ns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"

#ifndef NSFS_MAGIC
#define NSFS_MAGIC 0x6e736673
#endif

/* The namespaces that may be joined, by RR_NS_* bit index. */
static const struct {
    int index;
    int flag;
    const char *proc_name; /* ours, to come back to after the clone */
} joinable[] = {{2, CLONE_NEWPID, "pid_for_children"},
                {3, CLONE_NEWNET, "net"},
                {4, CLONE_NEWIPC, "ipc"},
                {5, CLONE_NEWUTS, "uts"}};
#define N_JOINABLE (sizeof(joinable) / sizeof(joinable[0]))

void engine_ns_init(struct engine_ns *ns)
{
    *ns = (struct engine_ns){.pod = {.userns_fd = -1}};
    for (size_t i = 0; i < N_JOINABLE; i++)
        ns->back_fd[i] = -1;
}

static const char *name_of(int flag)
{
    for (size_t i = 0; i < N_JOINABLE; i++)
        if (joinable[i].flag == flag)
            return joinable[i].proc_name;
    return "?";
}

/* runc's checks on a namespace path: a namespace file (nsfs) of the type
 * the config names. */
static int open_one(struct engine_ns *ns, size_t k, const char *path, struct rr_error *err)
{
    struct engine_joins *j = &ns->joins;
    char own[64];
    struct statfs sf;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "linux.namespaces: %s", path);
    j->fd[j->n] = fd;
    j->flag[j->n] = joinable[k].flag;
    j->path[j->n] = path;
    j->n++;
    if (fstatfs(fd, &sf) < 0 || sf.f_type != NSFS_MAGIC)
        return rr_fail(err, EINVAL, "linux.namespaces: %s is not a namespace file", path);
    if (ioctl(fd, NS_GET_NSTYPE) != joinable[k].flag)
        return rr_fail(err, EINVAL, "linux.namespaces: %s is not a %s namespace", path,
                       joinable[k].proc_name);
    snprintf(own, sizeof(own), "/proc/self/ns/%s", joinable[k].proc_name);
    ns->back_fd[j->n - 1] = open(own, O_RDONLY | O_CLOEXEC);
    if (ns->back_fd[j->n - 1] < 0)
        return rr_fail(err, errno, "%s", own);
    return 0;
}

int engine_ns_open(struct engine_ns *ns, const struct rr_config *cfg, int root_fd, const char *self,
                   struct rr_error *err)
{
    for (size_t k = 0; k < N_JOINABLE; k++) {
        const char *path = cfg->linux.ns_path[joinable[k].index];
        if (path != NULL && open_one(ns, k, path, err) < 0)
            return -1;
    }
    return engine_pod_resolve(root_fd, self, &ns->joins, &ns->pod, err);
}

/* Sysctls of a joined namespace are written by revrun as root of the host
 * (engine_write_sysctls in spawn): when that namespace is revrun's own (the
 * host's: a path such as /proc/1/ns/net), they would change the host, so
 * they are refused, as runc refuses them in the host's network namespace. */
int engine_ns_check_sysctls(const struct engine_ns *ns, const struct rr_strv *kvs,
                            struct rr_error *err)
{
    for (size_t i = 0; i < ns->joins.n && kvs->n > 0; i++) {
        struct stat joined, own;
        if (fstat(ns->joins.fd[i], &joined) < 0 || fstat(ns->back_fd[i], &own) < 0)
            return rr_fail(err, errno, "linux.namespaces: %s", ns->joins.path[i]);
        if (joined.st_dev != own.st_dev || joined.st_ino != own.st_ino)
            continue;
        for (size_t k = 0; k < kvs->n; k++) {
            const char *kv = kvs->v[k];
            int flag = strncmp(kv, "net.", 4) == 0 ? CLONE_NEWNET
                       : strncmp(kv, "kernel.hostname=", 16) == 0 ||
                               strncmp(kv, "kernel.domainname=", 18) == 0
                           ? CLONE_NEWUTS
                           : CLONE_NEWIPC;
            if (flag == ns->joins.flag[i])
                return rr_fail(err, 0,
                               "linux.sysctl.%.*s: refused: the %s namespace %s is the host's "
                               "(revrun's own); the sysctl would change the host",
                               (int)strcspn(kv, "="), kv, name_of(flag), ns->joins.path[i]);
        }
    }
    return 0;
}

int engine_ns_enter(struct engine_ns *ns, struct rr_error *err)
{
    for (size_t i = 0; i < ns->joins.n; i++)
        if (setns(ns->joins.fd[i], ns->joins.flag[i]) < 0)
            return rr_fail(err, errno, "join the %s namespace %s", name_of(ns->joins.flag[i]),
                           ns->joins.path[i]);
    return 0;
}

int engine_ns_leave(struct engine_ns *ns, struct rr_error *err)
{
    for (size_t i = 0; i < ns->joins.n; i++)
        if (setns(ns->back_fd[i], ns->joins.flag[i]) < 0)
            return rr_fail(err, errno, "leave the %s namespace %s", name_of(ns->joins.flag[i]),
                           ns->joins.path[i]);
    return 0;
}

int engine_ns_child_pod(const struct engine_ns *ns, unsigned clone_flags, struct rr_error *err)
{
    unsigned own = clone_flags & ~(unsigned)CLONE_NEWUSER;

    if (setns(ns->pod.userns_fd, CLONE_NEWUSER) < 0)
        return rr_fail(err, errno, "join the pod's user namespace (container %s's)", ns->pod.owner);
    if (own != 0 && unshare((int)own) < 0)
        return rr_fail(err, errno, "the container's namespaces in the pod's user namespace");
    return 0;
}

void engine_ns_close(struct engine_ns *ns)
{
    for (size_t i = 0; i < ns->joins.n; i++) {
        if (ns->joins.fd[i] >= 0)
            close(ns->joins.fd[i]);
        if (ns->back_fd[i] >= 0)
            close(ns->back_fd[i]);
        ns->joins.fd[i] = ns->back_fd[i] = -1;
    }
    engine_pod_close(&ns->pod);
}
