/* `revrun check`: which layer refused a step, and the flag that lifts it.
 *
 * A refusal is EPERM whoever refuses, so the layers are told apart by what
 * can be seen from here: a seccomp filter is caught by calling the step's
 * syscalls with arguments the kernel itself rejects (EINVAL, EFAULT) before
 * any permission check, so that EPERM or ENOSYS can only come from a filter;
 * missing capabilities are read from CapEff; a masked /proc from mountinfo;
 * the LSMs are named only where the host has them. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/check/check.h"

#define CAP_SYS_ADMIN_BIT 21
#define CAP_SETUID_BIT 7
#define CAP_SETGID_BIT 6

/* ---- seccomp: syscalls called so that only a filter can say EPERM ---- */

enum {
    SC_UNSHARE = 1u << 0,
    SC_CLONE = 1u << 1,
    SC_MOUNT = 1u << 2,
    SC_FSOPEN = 1u << 3,
    SC_FSMOUNT = 1u << 4,
    SC_MOVE_MOUNT = 1u << 5,
    SC_OPEN_TREE = 1u << 6,
    SC_MOUNT_SETATTR = 1u << 7,
    SC_PIVOT_ROOT = 1u << 8,
    SC_SETHOSTNAME = 1u << 9,
};

#define BAD_FLAG 0x80000000UL
#define ALL_NS                                                                                     \
    (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC |    \
     CLONE_NEWCGROUP)

static bool filtered(long r)
{
    return r < 0 && (errno == EPERM || errno == EACCES || errno == ENOSYS);
}

/* Those the kernel answers before any capability check. */
static unsigned probe_plain(void)
{
    unsigned f = 0;

    /* an exit-signal byte is invalid for unshare: EINVAL */
    if (filtered(syscall(SYS_unshare, ALL_NS | 0x1UL)))
        f |= SC_UNSHARE;
    /* CLONE_NEWNS with CLONE_FS: EINVAL before anything is made */
    long pid = syscall(SYS_clone, ALL_NS | CLONE_FS | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0); /* not on any kernel revrun runs on; but never two of us */
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    if (filtered(pid))
        f |= SC_CLONE;
    /* a NULL target: EFAULT before may_mount() */
    if (filtered(syscall(SYS_mount, NULL, NULL, NULL, 0, NULL)))
        f |= SC_MOUNT;
    return f;
}

/* Those checked for CAP_SYS_ADMIN first: called from a user namespace of
 * our own where we hold it, so that only a filter can refuse them. */
static unsigned probe_owned(void)
{
    unsigned f = 0;

    if (filtered(syscall(SYS_fsopen, "", BAD_FLAG)))
        f |= SC_FSOPEN;
    if (filtered(syscall(SYS_fsmount, -1, BAD_FLAG, 0)))
        f |= SC_FSMOUNT;
    if (filtered(syscall(SYS_move_mount, -1, "", -1, "", BAD_FLAG)))
        f |= SC_MOVE_MOUNT;
    if (filtered(syscall(SYS_open_tree, -1, "", BAD_FLAG)))
        f |= SC_OPEN_TREE;
    if (filtered(syscall(SYS_mount_setattr, -1, "", BAD_FLAG, NULL, 0)))
        f |= SC_MOUNT_SETATTR;
    if (filtered(syscall(SYS_pivot_root, NULL, NULL)))
        f |= SC_PIVOT_ROOT;
    if (filtered(syscall(SYS_sethostname, NULL, 65))) /* over __NEW_UTS_LEN: EINVAL */
        f |= SC_SETHOSTNAME;
    return f;
}

struct sc_result {
    unsigned filtered;
    bool owned_known; /* probe_owned ran */
};

/* In a child: the answer goes back as text in msg. */
static int probe_child(void *arg, char *msg, size_t len)
{
    unsigned f;
    char m[128];
    int owned;

    (void)arg;
    f = probe_plain();
    owned = check_enter_userns(m, sizeof(m)) == 0 && unshare(CLONE_NEWUTS) == 0;
    if (owned)
        f |= probe_owned();
    snprintf(msg, len, "%u %d", f, owned);
    return 0;
}

static const struct sc_result *seccomp_probe(void)
{
    static struct sc_result res;
    static bool done;
    char msg[64];
    int owned = 0;

    if (done)
        return &res;
    done = true;
    if (check_in_child(probe_child, NULL, msg, sizeof(msg)) == 0 &&
        sscanf(msg, "%u %d", &res.filtered, &owned) == 2)
        res.owned_known = owned != 0;
    return &res;
}

static unsigned step_syscalls(enum check_step step)
{
    switch (step) {
    case STEP_MOUNT_NS:
    case STEP_USERNS:
    case STEP_CGROUP_NS:
        return SC_UNSHARE;
    case STEP_CLONE:
        return SC_CLONE;
    case STEP_MOUNT:
    case STEP_PROC:
        return SC_FSOPEN | SC_FSMOUNT | SC_MOVE_MOUNT;
    case STEP_IDMAP_LOWER:
        return SC_OPEN_TREE | SC_MOUNT_SETATTR;
    case STEP_PIVOT:
        return SC_PIVOT_ROOT;
    case STEP_HOSTNAME:
        return SC_SETHOSTNAME;
    case STEP_FUSE:
        return SC_MOUNT;
    default:
        return 0;
    }
}

/* Steps that need CAP_SYS_ADMIN where revrun runs (as root, the monitor
 * works in the caller's user namespace); unprivileged, revrun makes a user
 * namespace of its own first and brings its capabilities with it. */
static bool needs_sys_admin(enum check_step step, bool rootless)
{
    if (rootless)
        return false;
    return step == STEP_MOUNT_NS || step == STEP_MOUNT || step == STEP_IDMAP_LOWER ||
           step == STEP_FUSE;
}

static bool is_refusal(int e)
{
    return e == EPERM || e == EACCES || e == ENOSYS;
}

static bool aa_confined(const struct check_facts *f)
{
    return f->apparmor && f->aa_label[0] != '\0' && strncmp(f->aa_label, "unconfined", 10) != 0;
}

static bool engine_profile(const struct check_facts *f)
{
    return strncmp(f->aa_label, "docker-default", 14) == 0 ||
           strncmp(f->aa_label, "containers-default", 18) == 0;
}

static bool mounts(enum check_step step)
{
    return step == STEP_MOUNT || step == STEP_PROC || step == STEP_PIVOT ||
           step == STEP_IDMAP_LOWER || step == STEP_FUSE;
}

unsigned check_cause_of(const struct check_report *r, enum check_step step, int e)
{
    const struct check_facts *f = &r->facts;
    unsigned c = 0;
    unsigned sc = step_syscalls(step);

    if (step == STEP_CGROUP)
        return (e == EROFS || e == EACCES || e == EPERM || e == EBUSY) ? CAUSE_CGROUP_RO : 0;
    if (step == STEP_FUSE && e == ENOENT && !f->dev_fuse)
        return CAUSE_NO_FUSE;
    if (!is_refusal(e))
        return 0;
    if (f->seccomp_mode == 2 && sc != 0 && (seccomp_probe()->filtered & sc) != 0)
        c |= CAUSE_SECCOMP;
    if (needs_sys_admin(step, r->rootless) && !(f->cap_eff & (1ULL << CAP_SYS_ADMIN_BIT)))
        c |= CAUSE_CAPS;
    if (step == STEP_ID_MAP && !r->rootless &&
        (f->cap_eff & ((1ULL << CAP_SETUID_BIT) | (1ULL << CAP_SETGID_BIT))) !=
            ((1ULL << CAP_SETUID_BIT) | (1ULL << CAP_SETGID_BIT)))
        c |= CAUSE_CAPS;
    if (step == STEP_PROC && f->proc_masked)
        c |= CAUSE_PROC_MASKED;
    if ((step == STEP_USERNS || step == STEP_CLONE || step == STEP_ID_MAP) && r->rootless &&
        f->aa_userns_sysctl)
        c |= CAUSE_AA_USERNS;
    /* the engines' default profiles deny mount outright: named with the
     * other causes, so that lifting those does not reveal it next */
    if (aa_confined(f) && (c == 0 || (engine_profile(f) && mounts(step))))
        c |= CAUSE_APPARMOR;
    if (c == 0 && f->selinux_enforcing && e == EACCES)
        c |= CAUSE_SELINUX;
    return c;
}

/* ---- remedies ---- */

struct remedy {
    const char *layer;  /* what refused, as the report says it */
    const char *docker; /* docker run flags (NULL: not an engine flag) */
    const char *podman;
    const char *k8s;    /* the pod spec's container securityContext */
    const char *host;   /* or what to change on the host / in the config */
};

static const struct remedy remedies[CAUSE_COUNT] = {
    {"the outer container's seccomp filter", "--security-opt seccomp=unconfined",
     "--security-opt seccomp=unconfined", "seccompProfile: {type: Unconfined}", NULL},
    {"the outer container's capabilities (no CAP_SYS_ADMIN in CapEff)", "--cap-add SYS_ADMIN",
     "--cap-add SYS_ADMIN", "capabilities: {add: [SYS_ADMIN]}", NULL},
    {"a masked /proc (paths mounted over it: the kernel refuses a new procfs)",
     "--security-opt systempaths=unconfined", "--security-opt unmask=ALL", "procMount: Unmasked",
     "(kubernetes: procMount: Unmasked needs hostUsers: false on the pod)"},
    {"a read-only or not writable cgroup hierarchy (on cgroup v2, EBUSY: the container's "
     "processes sit in the root of its cgroup namespace, which cannot then enable controllers "
     "for revrun's)",
     "-v /sys/fs/cgroup:/sys/fs/cgroup:rw --cgroupns=host",
     "-v /sys/fs/cgroup:/sys/fs/cgroup:rw --cgroupns=host",
     "privileged: true",
     "or list \"memory\", \"pids\", \"cpu\" in revrun.bestEffort (the outer container's own "
     "limits then bound the job); for EBUSY, or move the container's processes to a child "
     "cgroup first, as docker-in-docker does: mkdir /sys/fs/cgroup/init && for p in $(cat "
     "/sys/fs/cgroup/cgroup.procs); do echo $p > /sys/fs/cgroup/init/cgroup.procs; done"},
    {"no /dev/fuse", "--device /dev/fuse", "--device /dev/fuse", NULL,
     "(kubernetes: a /dev/fuse device plugin, or privileged: true; only the fuse backend needs "
     "it: revrun.overlay \"native\" does not)"},
    {"an AppArmor profile", "--security-opt apparmor=unconfined",
     "--security-opt apparmor=unconfined", "appArmorProfile: {type: Unconfined}", NULL},
    {"SELinux", "--security-opt label=disable", "--security-opt label=disable",
     "seLinuxOptions: {type: spc_t}", NULL},
    {"AppArmor's restriction of unprivileged user namespaces", NULL, NULL, NULL,
     "sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0, or the AppArmor profile for "
     "revrun in README \"Host shapes\""},
    {"this kernel", NULL, NULL, NULL, "a newer kernel (see the step)"},
};

void check_cause_text(const struct check_facts *f, unsigned causes, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < CAUSE_COUNT && used < len; i++) {
        if (!(causes & (1u << i)))
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? "; " : "", remedies[i].layer);
        if (w < 0)
            return;
        used += (size_t)w;
        if ((1u << i) == CAUSE_SECCOMP && used < len)
            used += (size_t)snprintf(
                buf + used, len - used, " (Seccomp: %d%s)", f->seccomp_mode,
                f->cap_eff & (1ULL << CAP_SYS_ADMIN_BIT)
                    ? ""
                    : "; docker's and podman's default profiles open the mount-family syscalls "
                      "to CAP_SYS_ADMIN, so --cap-add SYS_ADMIN may lift this too");
        else if ((1u << i) == CAUSE_CAPS && used < len)
            used += (size_t)snprintf(buf + used, len - used, " (CapEff %016llx)",
                                     (unsigned long long)f->cap_eff);
        else if ((1u << i) == CAUSE_PROC_MASKED && used < len)
            used += (size_t)snprintf(buf + used, len - used, " (%s)", f->proc_mask);
        else if ((1u << i) == CAUSE_APPARMOR && used < len)
            used += (size_t)snprintf(buf + used, len - used, " (%s)", f->aa_label);
    }
}

static size_t append_engine(char *buf, size_t len, size_t used, const char *label,
                            unsigned causes, int which)
{
    bool any = false;

    for (int i = 0; i < CAUSE_COUNT; i++) {
        const struct remedy *rm = &remedies[i];
        const char *flag = which == 0 ? rm->docker : which == 1 ? rm->podman : rm->k8s;
        if (!(causes & (1u << i)) || flag == NULL || used >= len)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", any ? (which == 2 ? ", " : " ")
                                                                     : label, flag);
        any = true;
    }
    if (any && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%s\n", which == 2 ? "}" : "");
    return used;
}

void check_remedies(const struct check_facts *f, unsigned causes, bool rootless, char *buf,
                    size_t len)
{
    size_t used = 0;

    (void)f;
    (void)rootless;
    buf[0] = '\0';
    used = append_engine(buf, len, used, "docker run ", causes, 0);
    used = append_engine(buf, len, used, "podman run ", causes, 1);
    used = append_engine(buf, len, used, "kubernetes securityContext: {", causes, 2);
    for (int i = 0; i < CAUSE_COUNT && used < len; i++)
        if ((causes & (1u << i)) && remedies[i].host != NULL)
            used += (size_t)snprintf(buf + used, len - used, "%s\n", remedies[i].host);
    if (used > 0 && buf[used - 1] == '\n')
        buf[used - 1] = '\0';
}
