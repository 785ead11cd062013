/* A review's config (revrun's own bundles): profile_build, at the end,
 * judges it step by step and refuses what revrun does not allow. The steps
 * of other files (pf_*, internal.h): ids.c, mounts.c, gitdirs.c,
 * landlock.c; the seccomp floor, syscalls.c. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "egress/egress.h"
#include "runtime/confine/lower_credentials.h"

/* Every namespace, always: a config that leaves one out is refused, except
 * the network namespace when revrun.network is "host" (the documented,
 * explicit widening). */
static int judge_namespaces(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    static const struct {
        unsigned bit;
        const char *name;
    } required[] = {{RR_NS_USER, "user"}, {RR_NS_MOUNT, "mount"}, {RR_NS_PID, "pid"},
                    {RR_NS_IPC, "ipc"},   {RR_NS_UTS, "uts"},     {RR_NS_CGROUP, "cgroup"}};

    for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
        if (!(c->linux.namespaces & required[i].bit))
            return rr_fail(err, 0, "linux.namespaces: revrun always isolates \"%s\"; add it",
                           required[i].name);
    p->net_host = c->revrun.network == RR_NET_HOST;
    if (!p->net_host && !(c->linux.namespaces & RR_NS_NET))
        return rr_fail(err, 0,
                       "linux.namespaces: \"network\" is missing; sharing the host network "
                       "is the explicit switch revrun.network = \"host\"");
    if (p->net_host && (c->linux.namespaces & RR_NS_NET))
        return rr_fail(err, 0,
                       "revrun.network is \"host\" but linux.namespaces lists \"network\"");
    /* Without the host network, nothing can be resolved; saying so at once
     * (NXDOMAIN) keeps agents from retrying a "temporary" failure. */
    p->dns_nxdomain = !p->net_host;
    p->clone_flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                     (p->net_host ? 0 : CLONE_NEWNET);
    return 0;
}
/* The checkout: where it is on the host and who owns it. */
static int judge_lower(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    struct stat st;

    p->lower = c->revrun.lower;
    p->checkout_path = c->revrun.checkout_path;
    p->backend = c->revrun.overlay;
    p->upper_size = c->revrun.upper_size;
    if (strcmp(p->checkout_path, "/") == 0)
        return rr_fail(err, 0, "revrun.checkoutPath: the checkout cannot be the root");
    if (stat(p->lower, &st) < 0)
        return rr_fail(err, errno, "revrun.lower: %s", p->lower);
    if (!S_ISDIR(st.st_mode))
        return rr_fail(err, ENOTDIR, "revrun.lower: %s", p->lower);
    p->lower_owner = st.st_uid;
    p->lower_group = st.st_gid;
    p->lower_mode = st.st_mode & 0777;
    p->idmap_lower = !p->rootless;
    /* Everything in the lower is the agent's to read: no credential may be
     * in it. */
    return lower_refuse_credentials(
        p->lower,
        &(struct lower_view){.checkout_inside = p->checkout_path,
                             .home = pf_env_value(&c->process.env, "HOME"),
                             .checkout_host = p->lower},
        err);
}
/* linux.maskedPaths and linux.readonlyPaths, as the config lists them, except
 * under /proc with revrun.nestedSandboxes: the kernel mounts a fresh procfs
 * for a nested pid namespace only while an existing procfs is fully visible
 * (a mask makes it "too revealing"), so bwrap --proc and unshare --mount-proc
 * need /proc unmasked. What that exposes is read-only host information
 * (/proc/interrupts, /proc/timer_list, /proc/acpi, ...): the writable files
 * there (/proc/sys, /proc/sysrq-trigger) belong to the host's root, which is
 * not mapped in the container, so the kernel still refuses the agent's
 * writes. THREAT_MODEL.md weighs it. */
static int judge_hardening(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_strv *from[] = {&c->linux.masked_paths, &c->linux.readonly_paths};
    struct rr_strv *to[] = {&p->masked, &p->readonly};

    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < from[k]->n; i++) {
            if (p->allow_nested_sandboxes && pf_path_within(from[k]->v[i], "/proc"))
                continue;
            if (strv_push(to[k], from[k]->v[i]) < 0)
                return rr_fail(err, ENOMEM, "masked paths");
        }
    p->masked_paths = &p->masked;
    p->readonly_paths = &p->readonly;
    return 0;
}
/* revrun.home, homeFiles, artifacts: HOME must be a tmpfs of the config's
 * (a bind would make the copy a write to the host); that tmpfs is then made
 * by the monitor, seeded by copy (never bound: nothing of the seed on the
 * host can be changed by the agent), and kept until destroy, so the
 * artifacts can be copied out after the agent has ended. */
static int judge_home(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const char *home = pf_env_value(&c->process.env, "HOME");
    struct stat st;

    if (c->revrun.home == NULL && c->revrun.n_home_files == 0 && c->revrun.artifacts.n == 0)
        return 0;
    if (home == NULL || home[0] != '/')
        return rr_fail(err, 0, "revrun.home/homeFiles/artifacts: process.env sets no absolute HOME");
    for (size_t i = 0; i < p->n_mounts && p->home == NULL; i++)
        if (p->mounts[i].kind == MOUNT_TMPFS && strcmp(p->mounts[i].destination, home) == 0) {
            p->mounts[i].home_store = true;
            p->home = &p->mounts[i];
        }
    if (p->home == NULL)
        return rr_fail(err, 0, "revrun.home/homeFiles/artifacts: HOME (%s) must be a tmpfs mount "
                               "of the config", home);
    if (c->revrun.home != NULL && (stat(c->revrun.home, &st) < 0 || !S_ISDIR(st.st_mode)))
        return rr_fail(err, errno ? errno : ENOTDIR, "revrun.home %s", c->revrun.home);
    p->home_path = home;
    p->home_seed = c->revrun.home;
    p->home_files = c->revrun.home_files;
    p->n_home_files = c->revrun.n_home_files;
    p->artifacts = &c->revrun.artifacts;
    return 0;
}
/* With a broker, the agent reaches exactly one endpoint: the relay on
 * loopback, which only talks to the broker on the host. Its address goes
 * into the environment under each of revrun.egress.baseUrlEnv (unless
 * process.env sets that variable itself). Without one, nothing leaves the
 * loopback-only network namespace. */
static int judge_egress(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_egress *eg = &c->revrun.egress;
    char var[512], url[64];

    p->env = &c->process.env;
    if (eg->mode != RR_EGRESS_BROKER)
        return 0;
    if (egress_config_validate(eg, c->revrun.network, err) < 0)
        return rr_wrap(err, "revrun.egress");
    p->egress = eg;
    p->egress_port = eg->port ? eg->port : EGRESS_DEFAULT_PORT;
    for (size_t i = 0; i < c->process.env.n; i++)
        if (strv_push(&p->env_owned, c->process.env.v[i]) < 0)
            return rr_fail(err, ENOMEM, "environment");
    egress_base_url(p->egress_port, url, sizeof(url));
    for (size_t i = 0; i < eg->base_url_env.n; i++) {
        /* NAME or NAME=/path: the relay's URL, with the path after it */
        const char *spec = eg->base_url_env.v[i];
        size_t n = strcspn(spec, "=");
        char name[128];
        snprintf(name, sizeof(name), "%.*s", (int)n, spec);
        if (pf_env_has(&c->process.env, name))
            continue;
        snprintf(var, sizeof(var), "%s=%s%s", name, url, spec[n] == '=' ? spec + n + 1 : "");
        if (strv_push(&p->env_owned, var) < 0)
            return rr_fail(err, ENOMEM, "environment");
    }
    p->env = &p->env_owned;
    return 0;
}
int profile_build(const struct rr_config *c, bool rootless, struct profile *p,
                  struct rr_error *err)
{
    memset(p, 0, sizeof(*p));
    p->cfg = c;
    p->rootless = rootless;
    p->dev_allowed = ~0u;
    p->best_effort = &c->revrun.best_effort;
    p->allow_nested_sandboxes = c->revrun.nested_sandboxes;
    p->allow_ptrace = c->revrun.ptrace;
    if (judge_namespaces(c, p, err) < 0 || pf_judge_identity(c, p, err) < 0 ||
        judge_lower(c, p, err) < 0 || pf_judge_mounts(c, p, err) < 0 ||
        pf_judge_terminal(c, p, err) < 0 || judge_hardening(c, p, err) < 0 ||
        pf_judge_git_common(c, p, err) < 0 ||
        pf_judge_landlock(p, err) < 0 || judge_egress(c, p, err) < 0 || judge_home(c, p, err) < 0 ||
        pf_judge_git_env(p, err) < 0) {
        profile_free(p);
        return -1;
    }
    p->root_readonly = c->root.readonly;
    p->hostname = c->hostname;
    p->args = &c->process.args;
    p->cwd = c->process.cwd;
    p->rlimits = c->process.rlimits;
    p->n_rlimits = c->process.n_rlimits;
    p->oci_seccomp = c->linux.seccomp.present ? &c->linux.seccomp : NULL;
    /* An agent whose own sandbox (bwrap, unshare) is refused is told why in
     * the review's report. */
    p->report_namespaces = !p->allow_nested_sandboxes;
    p->record_execs = !c->revrun.activity_off;
    if (pf_build_syscall_rules(p, err) < 0) {
        profile_free(p);
        return -1;
    }
    p->resources = c->linux.resources;
    /* Unread socket buffers are memory the agent holds: as much again as
     * its memory limit at most (a 128 MiB container held 608 MiB of them). */
    p->tcp_memory_limit = p->resources.memory_limit;
    p->timeout_seconds = c->revrun.timeout_seconds;
    return 0;
}
