#include "runtime/container/engine_ids.h"

#include <errno.h>
#include <linux/sched.h>
#include <linux/securebits.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bundle/policy.h"
#include "runtime/container/idalloc.h"

int engine_ids_take(const struct rr_config *cfg, bool rootless, const char *policy_file,
                    const char *root, const char *cid, struct engine_ids *ids,
                    struct rr_error *err)
{
    struct rr_id_range r;

    *ids = (struct engine_ids){.taken = false, .held = -1};
    if (policy_load_engine_ids(policy_file, &r, err) < 0)
        return -1;
    ids->base = r.first;
    if (rootless || (cfg->linux.n_uid_mappings > 0 && cfg->linux.n_gid_mappings > 0))
        return 0;
    if (idalloc_take_block(&r, POLICY_ENGINE_BLOCK, &ids->base, root, cid, &ids->held, err) < 0)
        return rr_wrap(err, "the container's host ids");
    ids->taken = true;
    return 0;
}

static bool meets(const struct rr_id_mapping *m, const struct rr_id_range *r)
{
    return (uint64_t)m->host_id < (uint64_t)r->first + r->count &&
           r->first < (uint64_t)m->host_id + m->size;
}

/* The one engineIds block the map lies in: 1 (*first), 0 none, -1 refused. */
static int pod_block(const struct rr_id_mapping *map, size_t n, const struct rr_id_range *eng,
                     const struct rr_id_range *host, uint32_t *first, struct rr_error *err)
{
    int found = 0;

    for (size_t i = 0; i < n; i++) {
        const struct rr_id_mapping *m = &map[i];
        uint32_t b;
        if (meets(m, host))
            return rr_fail(err, EPERM, "the pod's uid map (host %u-%u) meets hostIds: never "
                                       "joined", m->host_id, m->host_id + (m->size - 1));
        if (!meets(m, eng))
            continue;
        b = m->host_id < eng->first ? eng->first : m->host_id;
        b = eng->first + (b - eng->first) / POLICY_ENGINE_BLOCK * POLICY_ENGINE_BLOCK;
        if (m->host_id < b || (uint64_t)m->host_id + m->size > (uint64_t)b + POLICY_ENGINE_BLOCK ||
            (found && b != *first))
            return rr_fail(err, EPERM, "the pod's uid map (host %u-%u) is not one block of "
                                       "engineIds: never joined",
                           m->host_id, m->host_id + (m->size - 1));
        *first = b;
        found = 1;
    }
    return found;
}

int engine_ids_join(const struct rr_id_mapping *uid_map, size_t n, int userns_fd,
                    const char *policy_file, const char *root, const char *cid,
                    struct engine_ids *ids, struct rr_error *err)
{
    struct rr_id_range eng, host;
    int r;

    *ids = (struct engine_ids){.taken = false, .held = -1, .cid = cid};
    host = (struct rr_id_range){POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT};
    if (policy_load_engine_ids(policy_file, &eng, err) < 0 ||
        policy_load_host_ids(policy_file, &host, err) < 0)
        return -1;
    r = pod_block(uid_map, n, &eng, &host, &ids->base, err);
    if (r <= 0)
        return r < 0 ? rr_wrap(err, "the container's host ids") : 0;
    if (idalloc_join(ids->base, userns_fd, root, cid, &ids->held, err) < 0)
        return rr_wrap(err, "the container's host ids");
    ids->taken = ids->claim = true;
    return 0;
}

int engine_ids_hold(const struct engine_ids *ids, pid_t init, struct rr_error *err)
{
    if (!ids->taken)
        return 0;
    if (idalloc_hold_init(ids->held, init, err) < 0)
        return rr_wrap(err, "the container's host ids");
    return 0;
}

void engine_ids_drop(struct engine_ids *ids)
{
    if (ids->taken && ids->claim)
        idalloc_leave(ids->base, ids->cid, &ids->held);
    else if (ids->taken)
        idalloc_drop(ids->base, &ids->held);
    ids->taken = false;
}

void engine_ids_close(struct engine_ids *ids)
{
    if (ids->held >= 0)
        close(ids->held);
    ids->held = -1;
}

static pid_t clone_plain(unsigned flags)
{
    struct clone_args ca = {.flags = flags, .exit_signal = SIGCHLD};
    long pid = syscall(SYS_clone3, &ca, sizeof(ca));

    if (pid < 0 && errno == ENOSYS)
        pid = syscall(SYS_clone, (unsigned long)flags | SIGCHLD, 0, 0, 0, 0);
    return (pid_t)pid;
}

/* Back to root (euid and fsuid) with the securebits as they were: create
 * cannot go on as anyone else. */
static void back_to_root(int bits)
{
    if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
        _exit(127);
}

pid_t engine_clone_owned(unsigned flags, uid_t owner)
{
    int bits, e;
    pid_t pid;

    if (owner == 0 || geteuid() != 0 || !(flags & CLONE_NEWUSER))
        return clone_plain(flags);
    bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
    if (bits < 0 || prctl(PR_SET_SECUREBITS, bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0)
        return -1;
    /* The kernel makes the euid at clone the namespace's owner. */
    if (setresuid((uid_t)-1, owner, (uid_t)-1) < 0) {
        e = errno;
        back_to_root(bits);
        errno = e;
        return -1;
    }
    /* fsuid stays root's: the child opens what create made (root's) before
     * its ids are mapped, as it always did */
    setfsuid(0);
    if ((uid_t)setfsuid((uid_t)-1) != 0) {
        back_to_root(bits);
        errno = EPERM;
        return -1;
    }
    pid = clone_plain(flags);
    e = errno;
    if (pid == 0) {
        if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
            _exit(127);
        return 0;
    }
    back_to_root(bits);
    errno = e;
    return pid;
}
