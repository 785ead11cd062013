/* `revrun exec` and `revrun update`: a process or new limits for a
 * container that exists, judged against that container's profile. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- revrun exec and revrun update ---- */

/* The container's rlimits, each lowered where the process asks for less;
 * a resource the container leaves alone takes the process's value. */
static int exec_rlimits(const struct profile *c, const struct rr_config *proc,
                        struct exec_profile *out, struct rr_error *err)
{
    size_t n = 0;

    for (size_t i = 0; i < c->n_rlimits && n < PROFILE_EXEC_RLIMITS; i++)
        out->rlimits[n++] = c->rlimits[i];
    for (size_t i = 0; i < proc->process.n_rlimits; i++) {
        const struct rr_rlimit *want = &proc->process.rlimits[i];
        size_t j = 0;
        while (j < n && out->rlimits[j].resource != want->resource)
            j++;
        if (j == n) {
            if (n == PROFILE_EXEC_RLIMITS)
                return rr_fail(err, E2BIG, "process.rlimits: too many");
            out->rlimits[n++] = *want;
            continue;
        }
        if (want->hard < out->rlimits[j].hard)
            out->rlimits[j].hard = want->hard;
        if (want->soft < out->rlimits[j].soft)
            out->rlimits[j].soft = want->soft;
        if (out->rlimits[j].soft > out->rlimits[j].hard)
            out->rlimits[j].soft = out->rlimits[j].hard;
    }
    out->p.rlimits = out->rlimits;
    out->p.n_rlimits = n;
    return 0;
}
static bool engine_mapped(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return true;
    return false;
}

/* An engine's exec (ctr task exec, podman exec): any identity the
 * container's user namespace maps, capabilities within what the container
 * was granted, no_new_privs always; the rest is the container's. */
static int exec_engine(const struct profile *c, const struct rr_config *proc,
                       struct exec_profile *out, struct rr_error *err)
{
    struct engine_plan *e = &out->p.eng;

    if (!engine_mapped(c->eng.uid_map, c->eng.n_uid_map, proc->process.uid) ||
        !engine_mapped(c->eng.gid_map, c->eng.n_gid_map, proc->process.gid))
        return rr_fail(err, EPERM, "process.user: %u:%u is not mapped in the container",
                       (unsigned)proc->process.uid, (unsigned)proc->process.gid);
    if (proc->process.n_additional_gids > sizeof(e->groups) / sizeof(e->groups[0]))
        return rr_fail(err, E2BIG, "process.user.additionalGids: too many");
    e->n_groups = 0;
    for (size_t i = 0; i < proc->process.n_additional_gids; i++) {
        if (!engine_mapped(c->eng.gid_map, c->eng.n_gid_map, proc->process.additional_gids[i]))
            return rr_fail(err, EPERM, "process.user.additionalGids: %u is not mapped",
                           (unsigned)proc->process.additional_gids[i]);
        e->groups[e->n_groups++] = proc->process.additional_gids[i];
    }
    if (proc->process.has_umask)
        e->umask = proc->process.umask;
    for (size_t s = 0; s < 5; s++) {
        uint64_t want = 0;
        for (size_t i = 0; i < proc->process.caps[s].n; i++) {
            int n = rr_cap_by_name(proc->process.caps[s].v[i]);
            if (n >= 0)
                want |= 1ULL << n;
        }
        e->caps[s] = want & c->eng.caps[s];
        if ((want & ~c->eng.caps[s]) != 0 &&
            pf_note(&out->p, "exec: process.capabilities.%s: only what the container was granted",
                    rr_cap_set_names[s]) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    if (proc->process.has_no_new_privileges && !proc->process.no_new_privileges &&
        pf_note(&out->p, "exec: process.noNewPrivileges: set anyway (revrun's floor)") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (proc->process.apparmor_profile != NULL &&
        (c->eng.apparmor_profile == NULL ||
         strcmp(proc->process.apparmor_profile, c->eng.apparmor_profile) != 0) &&
        pf_note(&out->p, "exec: process.apparmorProfile: the container's applies") < 0)
        return rr_fail(err, ENOMEM, "notes");
    out->p.uid = proc->process.uid;
    out->p.gid = proc->process.gid;
    return 0;
}

int profile_exec(const struct profile *container, const struct rr_config *proc, bool record,
                 struct exec_profile *out, struct rr_error *err)
{
    memset(out, 0, sizeof(*out));
    out->p = *container;
    out->p.notes = (struct rr_strv){0}; /* the exec's own; the caller frees them */
    if (container->engine) {
        if (exec_engine(container, proc, out, err) < 0)
            return -1;
    } else if (proc->process.uid != container->uid || proc->process.gid != container->gid) {
        /* One identity is mapped into the review container's user
         * namespace: exec runs as it, or not at all. */
        return rr_fail(err, EPERM,
                       "process.user: %u:%u, but the container runs as %u:%u (the only "
                       "identity mapped in it)",
                       (unsigned)proc->process.uid, (unsigned)proc->process.gid,
                       (unsigned)container->uid, (unsigned)container->gid);
    } else if (proc->process.has_no_new_privileges && !proc->process.no_new_privileges) {
        return rr_fail(err, 0, "process.noNewPrivileges: revrun always sets it; remove false");
    }
    if (proc->process.terminal && !container->terminal) {
        /* a pty comes from the container's own devpts, which exists only
         * when the container was made with a terminal or mounts one */
        bool devpts = false;
        for (size_t i = 0; i < container->n_mounts; i++)
            devpts = devpts || container->mounts[i].kind == MOUNT_DEVPTS;
        if (!devpts)
            return rr_fail(err, EOPNOTSUPP, "process.terminal: the container has no devpts "
                                            "mount to take a pty from");
    }
    /* The same rules; what the container's monitor counts (a report) is a
     * plain refusal here, with its errno: nothing listens for this one. */
    out->rules = calloc(container->n_syscall_rules + PF_RECORD_RULES, sizeof(*out->rules));
    if (out->rules == NULL)
        return rr_fail(err, ENOMEM, "exec: syscall rules");
    /* Nor is an exec of this process recorded, unless the container's
     * recorder takes it (an engine's): a review's monitor holds no listener
     * for it, and the rule would fail every exec with ENOSYS. */
    out->p.n_syscall_rules = 0;
    for (size_t i = 0; i < container->n_syscall_rules; i++) {
        bool rec = container->syscall_rules[i].report == SYSCALL_RECORD;
        if (rec && !record)
            continue;
        out->rules[out->p.n_syscall_rules] = container->syscall_rules[i];
        out->rules[out->p.n_syscall_rules++].report = rec ? SYSCALL_RECORD : 0;
    }
    /* made with the record (its recorder listens), under a policy that no
     * longer asks for it: recorded as the container's own processes are */
    if (record && !container->record_execs)
        out->p.n_syscall_rules += pf_record_rules(out->rules + out->p.n_syscall_rules);
    out->p.syscall_rules = out->rules;
    out->p.record_execs = record;
    out->p.report_namespaces = false;
    out->p.terminal = proc->process.terminal;
    out->p.args = &proc->process.args;
    out->p.env = &proc->process.env;
    out->p.cwd = proc->process.cwd;
    return exec_rlimits(container, proc, out, err);
}

int profile_judge_update(const struct profile *container, const struct rr_resources *req,
                         struct rr_error *err)
{
    const struct {
        const char *name;
        int64_t want;
    } v[] = {
        {"memory", req->memory_limit},   {"memory-swap", req->memory_swap},
        {"pids-limit", req->pids_limit}, {"cpu-quota", req->cpu_quota},
        {"cpu-period", req->cpu_period}, {"cpu-shares", req->cpu_shares},
    };

    (void)container; /* every container may be updated within these rules */

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        if (v[i].want == RR_UNSET)
            continue;
        if (v[i].want <= 0)
            return rr_fail(err, EPERM, "update: --%s %lld: a limit stays a positive number (a "
                                       "container's limits can change, never be lifted)",
                           v[i].name, (long long)v[i].want);
    }
    if (req->memory_swap != RR_UNSET && req->memory_limit != RR_UNSET &&
        req->memory_swap < req->memory_limit)
        return rr_fail(err, EINVAL, "update: memory-swap is memory plus swap: not below memory");
    return 0;
}
