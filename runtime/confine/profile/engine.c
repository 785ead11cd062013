/* An engine's config: profile_build_engine.
 *
 * containerd's runc shim, podman's conmon and docker send ordinary OCI
 * bundles with the image as root.path. revrun honours what it can and
 * tightens the rest to its floor, one note per field; nothing here widens
 * what a review config may ask for (profile_build is untouched by it). The
 * engine's ids are judged in ids.c, its root in root.c, its mounts in
 * mounts.c, its checkout in checkout.c, its sysctls and device rules in sysctls.c and devices.c. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/config_engine.h"

static const struct {
    unsigned bit;
    const char *name;
    int clone_flag;
} engine_ns[] = {
    {RR_NS_USER, "user", CLONE_NEWUSER},   {RR_NS_MOUNT, "mount", CLONE_NEWNS},
    {RR_NS_PID, "pid", CLONE_NEWPID},      {RR_NS_NET, "network", CLONE_NEWNET},
    {RR_NS_IPC, "ipc", CLONE_NEWIPC},      {RR_NS_UTS, "uts", CLONE_NEWUTS},
    {RR_NS_CGROUP, "cgroup", CLONE_NEWCGROUP},
};

/* Every namespace, always; a missing one is added (user with revrun's
 * mapping). network, ipc, uts and pid may be joined by path (a pod's pause
 * container, podman's netns): the path is checked when it is opened (nsfs,
 * the right type: runc's checks). mount and cgroup are the container's own;
 * so is user, except in a pod: when the joined namespaces are a revrun
 * container's (engine_pod.c, by identity), their user namespace is joined
 * too, so that the container's root is theirs and may mount proc, mqueue
 * and sysfs for them; the config cannot name a user namespace itself. */
static int engine_namespaces(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    unsigned bit_index = 0;

    p->clone_flags = 0;
    for (size_t i = 0; i < sizeof(engine_ns) / sizeof(engine_ns[0]); i++) {
        while ((1u << bit_index) != engine_ns[i].bit)
            bit_index++;
        const char *path = c->linux.ns_path[bit_index];
        if (!(c->linux.namespaces & engine_ns[i].bit) &&
            pf_note(p, "linux.namespaces: \"%s\" added (revrun always isolates it%s)",
                    engine_ns[i].name,
                    engine_ns[i].bit == RR_NS_USER ? "; its mapping is revrun's" : "") < 0)
            return rr_fail(err, ENOMEM, "notes");
        if (path != NULL && (engine_ns[i].bit == RR_NS_USER || engine_ns[i].bit == RR_NS_MOUNT ||
                             engine_ns[i].bit == RR_NS_CGROUP))
            return rr_fail(err, 0,
                           "linux.namespaces: joining the \"%s\" namespace %s is refused (the "
                           "container's %s namespace is always its own)",
                           engine_ns[i].name, path, engine_ns[i].name);
        p->eng.ns_path[bit_index] = path;
        if (path != NULL)
            p->eng.join_flags |= (unsigned)engine_ns[i].clone_flag;
        else if (engine_ns[i].bit != RR_NS_CGROUP) /* unshared by init, after the cgroup join */
            p->clone_flags |= (unsigned)engine_ns[i].clone_flag;
    }
    p->net_host = false;
    if (p->eng.pod == NULL)
        return 0;
    p->clone_flags &= ~(unsigned)CLONE_NEWUSER;
    p->eng.join_flags |= CLONE_NEWUSER;
    if (pf_note(p, "linux.namespaces: \"user\" is the pod's (container %s's), whose namespaces "
                   "are joined; its ids are the pod's", p->eng.pod->owner) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}
/* no_new_privs: forced on, unless the host policy says "config"; then the
 * config's process.noNewPrivileges (false when absent, as the runtime spec
 * has it). What false still leaves in place: the seccomp floor (loaded
 * while the process holds CAP_SYS_ADMIN in its own user namespace, as runc
 * loads it without no_new_privs), the bounding set within the policy, every
 * mount nosuid (so setuid bits and file capabilities give nothing), and ids
 * that are unprivileged on the host (THREAT_MODEL.md "Engine mode"). */
static int engine_nnp(const struct rr_config *c, const struct rr_policy *pol,
                      const char *policy_file, struct profile *p, struct rr_error *err)
{
    bool want = c->process.has_no_new_privileges && c->process.no_new_privileges;

    p->eng.no_new_privs = pol->nnp_as_config ? want : true;
    if (!pol->nnp_as_config && c->process.has_no_new_privileges && !want &&
        pf_note(p, "process.noNewPrivileges: false tightened to true") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (!p->eng.no_new_privs &&
        pf_note(p, "process.noNewPrivileges: %s honoured (%s: %s.noNewPrivileges \"config\"); "
                   "the seccomp floor and the policy's capability bound still hold",
                c->process.has_no_new_privileges ? "false" : "absent (false)", policy_file,
                c->ann.policy != NULL ? c->ann.policy : "engine") < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

/* Capabilities: only inside revrun's user namespace, and only those the
 * host policy allows (never SYS_ADMIN and the other escape routes). */
static int engine_caps(const struct rr_config *c, const char *policy_file,
                       const struct rr_policy *pol, struct profile *p, struct rr_error *err)
{
    uint64_t allowed = pol->caps;
    uint64_t *g = p->eng.caps;

    allowed &= ~rr_caps_never;
    for (size_t s = 0; s < 5; s++) {
        const struct rr_strv *names = &c->process.caps[s];
        char dropped[384] = "";
        uint64_t want = 0;

        for (size_t i = 0; i < names->n; i++) {
            int n = rr_cap_by_name(names->v[i]);
            /* The runtime spec: a value with no kernel interface MUST be an
             * error (a misspelt name is not silently a narrower set). */
            if (n < 0)
                return rr_fail(err, 0, "process.capabilities.%s[%zu]: unknown capability",
                               rr_cap_set_names[s], i);
            if (allowed & (1ULL << n)) {
                want |= 1ULL << n;
            } else if (strlen(dropped) + strlen(names->v[i]) + 2 < sizeof(dropped)) {
                strcat(dropped, dropped[0] ? " " : "");
                strcat(dropped, names->v[i]);
            }
        }
        g[s] = want;
        if (dropped[0] != '\0' &&
            pf_note(p, "process.capabilities.%s: not granted (%s policy%s%s%s): %s",
                    rr_cap_set_names[s], policy_file,
                    access(policy_file, F_OK) == 0 ? "" : " absent: the default set",
                    c->ann.policy != NULL ? " " : "", c->ann.policy != NULL ? c->ann.policy : "",
                    dropped) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    /* effective within permitted, ambient within permitted and inheritable,
     * all within bounding: what the kernel would keep anyway, said here. */
    g[3] &= g[0];
    g[2] &= g[0];
    g[1] &= g[3];
    g[4] &= g[3] & g[2];
    return 0;
}
/* The pod's uid from the CRI's annotation, kept only as one plain path
 * component (profile/volumes.c opens it under kubeletPodsDir). */
static void pod_uid(const struct rr_config *c, struct profile *p)
{
    static const char key[] = "io.kubernetes.cri.sandbox-uid=";

    p->eng.pod_uid[0] = '\0';
    for (size_t i = 0; i < c->annotations.n; i++) {
        const char *v = c->annotations.v[i];
        if (strncmp(v, key, sizeof(key) - 1) != 0)
            continue;
        v += sizeof(key) - 1;
        if (v[0] == '\0' || strchr(v, '/') != NULL || strcmp(v, ".") == 0 ||
            strcmp(v, "..") == 0 || strlen(v) >= sizeof(p->eng.pod_uid))
            return;
        snprintf(p->eng.pod_uid, sizeof(p->eng.pod_uid), "%s", v);
        return;
    }
}

/* The config's masked and read-only paths, and revrun's always. */
static int engine_hardening(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_strv *from[] = {&c->linux.masked_paths, &c->linux.readonly_paths};
    const char *const *extra[] = {pf_default_masked, pf_default_readonly};
    size_t n_extra[] = {pf_n_default_masked, pf_n_default_readonly};
    struct rr_strv *to[] = {&p->masked, &p->readonly};
    const char *field[] = {"maskedPaths", "readonlyPaths"};

    for (size_t k = 0; k < 2; k++) {
        char added[512] = "";
        for (size_t i = 0; i < from[k]->n; i++)
            if (strv_push(to[k], from[k]->v[i]) < 0)
                return rr_fail(err, ENOMEM, "masked paths");
        for (size_t i = 0; i < n_extra[k]; i++) {
            if (strv_contains(to[k], extra[k][i]))
                continue;
            if (strv_push(to[k], extra[k][i]) < 0)
                return rr_fail(err, ENOMEM, "masked paths");
            if (strlen(added) + strlen(extra[k][i]) + 2 < sizeof(added)) {
                strcat(added, added[0] ? " " : "");
                strcat(added, extra[k][i]);
            }
        }
        if (added[0] != '\0' && pf_note(p, "linux.%s: revrun's added: %s", field[k], added) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    p->masked_paths = &p->masked;
    p->readonly_paths = &p->readonly;
    return 0;
}
/* linux.cgroupsPath: components only, none empty, "." or "..". A ".."
 * would climb out of /revrun-engine (or out of where an absolute path
 * says), and delete removes the empty parents of the container's cgroup
 * as revrun's own (review2 F4); "/" alone would be the hierarchy's root,
 * whose tasks delete kills. */
static int cgroups_path_ok(const char *path, struct rr_error *err)
{
    const char *s = path[0] == '/' ? path + 1 : path;

    for (;;) {
        size_t n = strcspn(s, "/");
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return rr_fail(err, 0, "linux.cgroupsPath \"%s\": empty, \".\" and \"..\" "
                                   "components are refused", path);
        if (s[n] == '\0')
            return 0;
        s += n + 1;
    }
}

int profile_build_engine(const struct rr_config *c, const char *bundle, const char *policy_file,
                         struct profile *p, struct rr_error *err)
{
    struct rr_id_range r;

    memset(p, 0, sizeof(*p));
    if (policy_load_engine_ids(policy_file, &r, err) < 0)
        return -1;
    return profile_build_engine_at(c, bundle, policy_file, r.first, p, err);
}

int profile_build_engine_at(const struct rr_config *c, const char *bundle,
                            const char *policy_file, uint32_t host_base, struct profile *p,
                            struct rr_error *err)
{
    return profile_build_engine_pod(c, bundle, policy_file, host_base, NULL, p, err);
}

int profile_build_engine_pod(const struct rr_config *c, const char *bundle,
                             const char *policy_file, uint32_t host_base,
                             const struct profile_pod *pod, struct profile *p,
                             struct rr_error *err)
{
    struct rr_policy pol;

    memset(p, 0, sizeof(*p));
    p->eng.host_base = host_base;
    p->eng.pod = pod;
    p->cfg = c;
    p->rootless = geteuid() != 0;
    p->engine = true;
    p->best_effort = &c->revrun.best_effort;
    p->dev_allowed = ~0u;
    p->landlock = LANDLOCK_OFF;
    p->mounts = calloc(c->n_mounts + 1, sizeof(*p->mounts));
    if (p->mounts == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    /* the host's policy: "engine", or the one io.revrun.policy names */
    if (policy_load_named(policy_file, c->ann.policy, &pol, err) < 0)
        goto fail;
    snprintf(p->eng.kubelet_pods, sizeof(p->eng.kubelet_pods), "%s", pol.kubelet_pods);
    pod_uid(c, p);
    snprintf(p->eng.activity_root, sizeof(p->eng.activity_root), "%s", pol.activity_root);
    if (engine_namespaces(c, p, err) < 0 || pf_engine_identity(c, policy_file, p, err) < 0 ||
        engine_caps(c, policy_file, &pol, p, err) < 0 ||
        engine_nnp(c, &pol, policy_file, p, err) < 0 || pf_engine_root(c, bundle, &pol, p, err) < 0)
        goto fail;
    for (size_t i = 0; i < c->n_mounts; i++) {
        p->n_mounts++;
        if (pf_engine_mount(c, i, &p->mounts[i], p, err) < 0)
            goto fail;
    }
    if (pf_engine_checkout(c, &pol, p, err) < 0)
        goto fail;
    if (pf_judge_terminal(c, p, err) < 0 || engine_hardening(c, p, err) < 0 ||
        pf_engine_resources(c, p, err) < 0)
        goto fail;
    if (c->ignored_top.n > 0) {
        char names[256] = "";
        for (size_t i = 0; i < c->ignored_top.n; i++)
            if (strlen(names) + strlen(c->ignored_top.v[i]) + 2 < sizeof(names)) {
                strcat(names, names[0] ? " " : "");
                strcat(names, c->ignored_top.v[i]);
            }
        if (pf_note(p, "config.json: unknown top-level properties ignored (the runtime spec's "
                       "rule; unknown keys inside process, linux and mounts are refused): %s",
                    names) < 0)
            goto fail;
    }
    p->hostname = c->hostname;
    p->eng.domainname = c->domainname;
    /* A joined UTS namespace is another container's: its names stay. */
    if ((p->eng.join_flags & CLONE_NEWUTS) && (c->hostname != NULL || c->domainname != NULL) &&
        pf_note(p, "hostname/domainname: not set (the UTS namespace is joined, not the "
                   "container's own)") < 0)
        goto fail;
    p->args = &c->process.args;
    p->env = &c->process.env;
    p->cwd = c->process.cwd;
    p->rlimits = c->process.rlimits;
    p->n_rlimits = c->process.n_rlimits;
    /* The floor: revrun's rules always, the engine's filter stacked on it. */
    p->oci_seccomp = c->linux.seccomp.present ? &c->linux.seccomp : NULL;
    /* The policy's "activity": "record": every exec goes through the floor's
     * listener to revrun's recorder (runtime/container/engine_recorder.h);
     * the container may then make no listener of its own. */
    p->record_execs = pol.activity_record;
    if (pf_build_syscall_rules(p, err) < 0)
        goto fail;
    p->resources = c->linux.resources;
    /* v1 counts TCP buffers apart once limited: bounded at the memory
     * limit, as a review's (RR_UNSET: no memory limit) */
    p->tcp_memory_limit = p->resources.memory_limit;
    /* runc's placement: a cgroup parent (a kubelet's pod, docker's,
     * podman's) is a ceiling and a meter only for what is in each of its
     * hierarchies */
    p->cgroup_everywhere = true;
    p->cgroups_path = c->linux.cgroups_path;
    if (p->cgroups_path != NULL && cgroups_path_ok(p->cgroups_path, err) < 0)
        goto fail;
    if (p->cgroups_path != NULL && p->cgroups_path[0] != '/') {
        snprintf(p->cgroups_buf, sizeof(p->cgroups_buf), "/revrun-engine/%s", p->cgroups_path);
        p->cgroups_path = p->cgroups_buf;
        if (pf_note(p, "linux.cgroupsPath: relative \"%s\" placed at %s", c->linux.cgroups_path,
                    p->cgroups_buf) < 0)
            goto fail;
    }
    return 0;
fail:
    profile_free(p);
    return -1;
}

int profile_judge_passed_fd(int fd, struct rr_error *err)
{
    struct stat st;
    int fl = fcntl(fd, F_GETFL);

    if (fl < 0 || fstat(fd, &st) < 0)
        return rr_fail(err, errno, "fd %d", fd);
    if (fl & O_PATH)
        return rr_fail(err, EPERM, "fd %d is an O_PATH handle: reopened through /proc it would "
                                   "reach past the container's root", fd);
    if (S_ISDIR(st.st_mode))
        return rr_fail(err, EPERM, "fd %d is a directory: openat(fd, \"..\") would walk the "
                                   "host's tree past the container's root", fd);
    return 0;
}
