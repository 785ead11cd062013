/* The confinement profile (see profile.h). Read this file top to bottom to
 * know everything the agent can reach. */
#include "runtime/confine/libmnt.h"
#include "runtime/confine/profile.h"
#include "runtime/confine/userns_ids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/gitwt.h"
#include "egress/egress.h"
#include "bundle/config_engine.h"
#include "bundle/policy.h"
#include "runtime/confine/cgroup_devices.h"
#include "runtime/confine/lower_credentials.h"

/* ---- the default hardened config (`revrun spec`) ---- */

/* Host directories the agent's toolchain needs, bound read-only. /etc is not
 * bound whole: only what programs need to run and to verify TLS. Of
 * /etc/ssl, the certificates and OpenSSL's configuration, never
 * /etc/ssl/private (host keys, readable to the ssl-cert group, which a
 * rootless caller's agent would carry). */
static const char *const default_ro_binds[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
    "/etc/alternatives", "/etc/ssl/certs", "/etc/ssl/openssl.cnf", "/etc/ca-certificates",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf",
};

/* /proc and /sys entries that expose the host (kernel memory, keys, timers)
 * or let a process act on it (sysrq): the same lists OCI runtimes use. */
static const char *const default_masked[] = {
    "/proc/acpi",        "/proc/asound",     "/proc/interrupts", "/proc/kcore",
    "/proc/keys",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug", "/proc/scsi",       "/sys/firmware",    "/sys/devices/virtual/powercap",
};
static const char *const default_readonly[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

static const char *const default_env[] = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/home/agent",
    "USER=agent",
    "LANG=C.UTF-8",
    "TERM=dumb",
};

static const struct rr_rlimit default_rlimits[] = {
    {RLIMIT_NOFILE, 4096, 4096},
    {RLIMIT_NPROC, 1024, 1024},
    {RLIMIT_CORE, 0, 0},
    {RLIMIT_FSIZE, 1ULL << 30, 1ULL << 30},
};

static int add_mount(struct rr_config *c, const char *dest, const char *type, const char *src,
                     const char *const *opts)
{
    struct rr_mount *m = realloc(c->mounts, (c->n_mounts + 1) * sizeof(*m));

    if (m == NULL)
        return -1;
    c->mounts = m;
    m = &c->mounts[c->n_mounts++];
    *m = (struct rr_mount){0};
    m->destination = strdup(dest);
    m->type = strdup(type);
    m->source = strdup(src);
    if (m->destination == NULL || m->type == NULL || m->source == NULL)
        return -1;
    for (; *opts != NULL; opts++)
        if (strv_push(&m->options, *opts) < 0)
            return -1;
    return 0;
}

static int default_mounts(struct rr_config *c)
{
    static const char *const proc_opts[] = {"nosuid", "noexec", "nodev", NULL};
    static const char *const dev_opts[] = {"nosuid", "noexec", "strictatime", "mode=755",
                                           "size=65536k", NULL};
    static const char *const shm_opts[] = {"nosuid", "noexec", "nodev", "mode=1777",
                                           "size=65536k", NULL};
    static const char *const tmp_opts[] = {"nosuid", "nodev", "mode=1777", "size=512m", NULL};
    static const char *const home_opts[] = {"nosuid", "nodev", "mode=700", "size=512m", NULL};
    static const char *const ro_opts[] = {"rbind", "ro", "nosuid", "nodev", NULL};
    struct stat st;

    if (add_mount(c, "/proc", "proc", "proc", proc_opts) < 0 ||
        add_mount(c, "/dev", "tmpfs", "tmpfs", dev_opts) < 0 ||
        add_mount(c, "/dev/shm", "tmpfs", "shm", shm_opts) < 0 ||
        add_mount(c, "/tmp", "tmpfs", "tmpfs", tmp_opts) < 0 ||
        add_mount(c, "/home/agent", "tmpfs", "tmpfs", home_opts) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(default_ro_binds) / sizeof(default_ro_binds[0]); i++) {
        /* Only what this host has: a spec names no source that is missing. */
        if (stat(default_ro_binds[i], &st) < 0)
            continue;
        if (add_mount(c, default_ro_binds[i], "bind", default_ro_binds[i], ro_opts) < 0)
            return -1;
    }
    return 0;
}

static int push_all(struct rr_strv *sv, const char *const *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strv_push(sv, items[i]) < 0)
            return -1;
    return 0;
}

/* Rootless, the only host id the kernel lets us map is our own: the spec
 * says so. As root the spec maps nothing: create gives each container a
 * host uid/gid of its own from the policy's hostIds range (idalloc.h). */
static int default_identity(struct rr_config *c, bool rootless)
{
    struct rr_id_mapping *u, *g;

    c->process.uid = PROFILE_DEFAULT_UID;
    c->process.gid = PROFILE_DEFAULT_GID;
    if (!rootless)
        return 0;
    u = calloc(1, sizeof(*u));
    g = calloc(1, sizeof(*g));
    if (u == NULL || g == NULL) {
        free(u);
        free(g);
        return -1;
    }
    *u = (struct rr_id_mapping){PROFILE_DEFAULT_UID, (uint32_t)getuid(), 1};
    *g = (struct rr_id_mapping){PROFILE_DEFAULT_GID, (uint32_t)getgid(), 1};
    c->linux.uid_mappings = u;
    c->linux.n_uid_mappings = 1;
    c->linux.gid_mappings = g;
    c->linux.n_gid_mappings = 1;
    return 0;
}

static int default_process(struct rr_config *c)
{
    c->process.rlimits = malloc(sizeof(default_rlimits));
    if (c->process.rlimits == NULL)
        return -1;
    memcpy(c->process.rlimits, default_rlimits, sizeof(default_rlimits));
    c->process.n_rlimits = sizeof(default_rlimits) / sizeof(default_rlimits[0]);
    c->process.no_new_privileges = true;
    c->process.has_no_new_privileges = true;
    if (strv_push(&c->process.args, "sh") < 0 ||
        push_all(&c->process.env, default_env, sizeof(default_env) / sizeof(default_env[0])) < 0)
        return -1;
    return 0;
}

int profile_default_config(struct rr_config *c, const char *lower, bool rootless,
                           struct rr_error *err)
{
    char cwd[4096];

    memset(c, 0, sizeof(*c));
    c->linux.resources = (struct rr_resources){
        .memory_limit = 2LL << 30,
        .memory_swap = 2LL << 30, /* = limit: no swap on top */
        .pids_limit = 1024,
        .cpu_quota = 200000,
        .cpu_period = 100000,
        .cpu_shares = RR_UNSET,
        .blkio_weight = RR_UNSET,
    };
    if (lower == NULL) {
        if (getcwd(cwd, sizeof(cwd)) == NULL)
            return rr_fail(err, errno, "getcwd");
        lower = cwd;
    }
    if (lower[0] != '/')
        return rr_fail(err, EINVAL, "--lower must be an absolute path");
    c->oci_version = strdup("1.0.2");
    c->root.path = strdup("rootfs");
    c->root.readonly = true;
    c->hostname = strdup("revrun");
    c->revrun.lower = strdup(lower);
    c->revrun.checkout_path = strdup("/workspace");
    c->process.cwd = strdup("/workspace");
    c->revrun.overlay = RR_BACKEND_AUTO;
    c->revrun.upper_size = 1ULL << 30;
    c->revrun.timeout_seconds = 3600;
    c->revrun.min_free_space = 64ULL << 20;
    c->linux.namespaces = RR_NS_USER | RR_NS_MOUNT | RR_NS_PID | RR_NS_NET | RR_NS_IPC |
                          RR_NS_UTS | RR_NS_CGROUP;
    if (c->oci_version == NULL || c->root.path == NULL || c->hostname == NULL ||
        c->revrun.lower == NULL || c->revrun.checkout_path == NULL || c->process.cwd == NULL ||
        default_identity(c, rootless) < 0 || default_process(c) < 0 || default_mounts(c) < 0 ||
        push_all(&c->linux.masked_paths, default_masked,
                 sizeof(default_masked) / sizeof(default_masked[0])) < 0 ||
        push_all(&c->linux.readonly_paths, default_readonly,
                 sizeof(default_readonly) / sizeof(default_readonly[0])) < 0 ||
        /* Landlock is a second layer under the mounts: applied wherever the
         * kernel has it (5.13+), skipped with a warning where it does not. */
        strv_push(&c->revrun.best_effort, "landlock") < 0 ||
        writeback_policy_defaults(&c->revrun.writeback, err) < 0) {
        config_free(c);
        return rr_fail(err, ENOMEM, "default config");
    }
    return 0;
}

/* ---- the seccomp floor ---- */

/* Denied with EPERM, always: the kernel's administrative interfaces and the
 * classic container-escape and kernel-attack surfaces. The agent holds no
 * capability, so most of these fail anyway; the filter keeps it that way if
 * a capability ever leaked, and shrinks the kernel code the agent can reach. */
static const char *const denied_always[] = {
    "keyctl", "add_key", "request_key",                 /* the kernel keyring */
    "bpf", "perf_event_open", "userfaultfd",            /* exploit primitives */
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at",                                /* escape via file handles */
    "acct", "swapon", "swapoff", "reboot", "syslog", "vhangup",
    "settimeofday", "clock_settime", "stime",
    "iopl", "ioperm", "quotactl", "quotactl_fd", "lookup_dcookie",
    "uselib", "nfsservctl", "_sysctl", "create_module", "get_kernel_syms", "query_module",
    "vm86", "vm86old", "pciconfig_iobase", "pciconfig_read", "pciconfig_write",
};

/* Denied unless revrun.nestedSandboxes: mounting, and making namespaces
 * (which is what would let the agent hold CAP_SYS_ADMIN somewhere). */
static const char *const denied_unless_nested[] = {
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr",
};

/* Denied unless revrun.ptrace: reading or changing another process. */
static const char *const denied_unless_ptrace[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",
};

#define CLONE_NS_FLAGS                                                                             \
    (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |    \
     CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */)

static int push_rule(struct profile *p, struct syscall_rule r)
{
    struct syscall_rule *v =
        realloc(p->syscall_rules, (p->n_syscall_rules + 1) * sizeof(*p->syscall_rules));

    if (v == NULL)
        return -1;
    p->syscall_rules = v;
    v[p->n_syscall_rules++] = r;
    return 0;
}

static int deny_list(struct profile *p, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (push_rule(p, (struct syscall_rule){.name = names[i], .errnum = EPERM}) < 0)
            return -1;
    return 0;
}

/* A syscall fails when any one bit of `bits` is set in argument `arg`. */
static int deny_bits_as(struct profile *p, const char *name, unsigned arg, uint64_t bits,
                        unsigned char report)
{
    for (unsigned b = 0; b < 64; b++) {
        uint64_t bit = 1ULL << b;
        if ((bits & bit) &&
            push_rule(p, (struct syscall_rule){name, EPERM, SYSCALL_ARG_MASKED_EQ, arg, bit, bit, 0, 0, report}) <
                0)
            return -1;
    }
    return 0;
}

static int deny_bits(struct profile *p, const char *name, unsigned arg, uint64_t bits)
{
    return deny_bits_as(p, name, arg, bits, false);
}

/* personality: only PER_LINUX (0), PER_LINUX32 (8) and those with
 * UNAME26 (0x20000): no ADDR_NO_RANDOMIZE, no READ_IMPLIES_EXEC. Every other
 * value has a bit in 0..16 other than bit 3 set, or is above 0x20008. */
static int deny_personality(struct profile *p)
{
    if (push_rule(p, (struct syscall_rule){"personality", EPERM, SYSCALL_ARG_GE, 0, 0, 0x20009, 0, 0, false}) < 0)
        return -1;
    return deny_bits(p, "personality", 0, 0x1ffffULL & ~0x8ULL);
}

/* ioctl: TIOCSTI (push bytes into a terminal's input) and TIOCLINUX. The
 * request is compared on its low 32 bits only, as the kernel reads it: high
 * bits must not smuggle it past the filter. */
static int deny_ioctls(struct profile *p)
{
    static const uint64_t requests[] = {0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */};

    for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
        if (push_rule(p, (struct syscall_rule){"ioctl", EPERM, SYSCALL_ARG_MASKED_EQ, 1,
                                               0xffffffffULL, requests[i], 0, 0, false}) < 0)
            return -1;
    return 0;
}

/* Socket families: the agent gets AF_UNIX, AF_INET, AF_INET6 and, for its
 * interface list only, AF_NETLINK with protocol NETLINK_ROUTE; nothing
 * else. The network namespace confines only families that are per netns:
 * AF_VSOCK (the hypervisor's and the VM's ports) is not, and AF_PACKET,
 * AF_XDP, AF_BLUETOOTH, AF_CAN and the rest are kernel attack surface no
 * agent needs. NETLINK_ROUTE is measured needed: without it Node's
 * os.networkInterfaces() throws; it sees only the namespace's loopback.
 * Other netlink protocols (audit, uevents, sock_diag, xfrm...) are not.
 * socket() and socketpair() fail with EAFNOSUPPORT, the family compared on
 * its low 32 bits as the kernel reads an int, and any value with a bit
 * above the 64 families refused by bit. On i386, libseccomp applies the
 * same rules to the socketcall multiplexer's SOCKET call, whose arguments
 * it cannot see: there every socketcall socket() is refused, and a 32-bit
 * program must use the direct socket() syscall (kernel 4.3+). Pinned by
 * integration/containment.bats "socket families". */
#define AF_NETLINK_ 16u

static bool family_allowed(unsigned f)
{
    return f == 1 /* AF_UNIX */ || f == 2 /* AF_INET */ || f == 10 /* AF_INET6 */;
}

static int deny_socket_families(struct profile *p)
{
    static const char *const calls[] = {"socket", "socketpair"};

    for (size_t c = 0; c < 2; c++) {
        for (unsigned f = 0; f < 64; f++) {
            struct syscall_rule r = {calls[c], EAFNOSUPPORT, SYSCALL_ARG_MASKED_EQ, 0,
                                     0xffffffffULL, f, 0, 0, false};
            if (family_allowed(f))
                continue;
            if (c == 0 && f == AF_NETLINK_)
                r.ne_arg = 1 + 2, r.ne = 0; /* protocol NETLINK_ROUTE only */
            if (push_rule(p, r) < 0)
                return -1;
        }
        for (unsigned b = 6; b < 32; b++)
            if (push_rule(p, (struct syscall_rule){calls[c], EAFNOSUPPORT, SYSCALL_ARG_MASKED_EQ,
                                                   0, 1ULL << b, 1ULL << b, 0, 0, false}) < 0)
                return -1;
    }
    return 0;
}

/* The activity record: every execve and execveat reaches the monitor, which
 * records it and lets it run. */
static int record_execs(struct profile *p)
{
    static const char *const calls[] = {"execve", "execveat"};

    for (size_t i = 0; i < 2; i++)
        if (push_rule(p, (struct syscall_rule){.name = calls[i], .report = SYSCALL_RECORD}) < 0)
            return -1;
    return 0;
}

/* A floor with a listener (the monitor's) keeps the agent from making one:
 * where two filters both ask for a user notification the newest wins, so an
 * agent's own listener would be answered first (CONTINUE on its unshare, an
 * exec kept out of the record). The kernel refuses a second listener only
 * while the monitor holds its own; this holds after it lets go too. */
static int deny_listeners(struct profile *p)
{
    return push_rule(p, (struct syscall_rule){"seccomp", EPERM, SYSCALL_ARG_MASKED_EQ, 1,
                                              SECCOMP_FILTER_FLAG_NEW_LISTENER,
                                              SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 0, false});
}

static int build_syscall_rules(struct profile *p, struct rr_error *err)
{
    int r = deny_list(p, denied_always, sizeof(denied_always) / sizeof(denied_always[0]));

    if (r == 0 && (p->report_namespaces || p->record_execs))
        r = deny_listeners(p);
    if (r == 0 && p->record_execs)
        r = record_execs(p);

    /* Joining other namespaces: refused always; an agent's attempt is
     * counted when its own sandbox is what is refused. */
    if (r == 0)
        r = push_rule(p, (struct syscall_rule){.name = "setns", .errnum = EPERM,
                                               .report = p->report_namespaces});
    if (r == 0)
        r = deny_personality(p);
    if (r == 0)
        r = deny_socket_families(p);
    if (r == 0)
        r = deny_ioctls(p);
    if (r == 0 && !p->allow_ptrace)
        r = deny_list(p, denied_unless_ptrace,
                      sizeof(denied_unless_ptrace) / sizeof(denied_unless_ptrace[0]));
    if (r == 0 && !p->allow_nested_sandboxes) {
        r = deny_list(p, denied_unless_nested,
                      sizeof(denied_unless_nested) / sizeof(denied_unless_nested[0]));
        if (r == 0)
            r = deny_bits_as(p, "unshare", 0, CLONE_NS_FLAGS, p->report_namespaces);
        if (r == 0)
            r = deny_bits_as(p, "clone", 0, CLONE_NS_FLAGS, p->report_namespaces);
        /* clone3 passes its flags in memory, out of the filter's sight: it
         * fails with ENOSYS so that glibc falls back to clone (EPERM would
         * break thread creation in glibc 2.34+). */
        if (r == 0)
            r = push_rule(p, (struct syscall_rule){.name = "clone3", .errnum = ENOSYS});
    }
    if (r < 0)
        return rr_fail(err, ENOMEM, "seccomp rules");
    return 0;
}

/* ---- egress ---- */

static bool env_has(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return true;
    return false;
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
        if (env_has(&c->process.env, name))
            continue;
        snprintf(var, sizeof(var), "%s=%s%s", name, url, spec[n] == '=' ? spec + n + 1 : "");
        if (strv_push(&p->env_owned, var) < 0)
            return rr_fail(err, ENOMEM, "environment");
    }
    p->env = &p->env_owned;
    return 0;
}

/* ---- judging a config ---- */

bool profile_best_effort(const struct profile *p, const char *name)
{
    return strv_contains(p->best_effort, name);
}

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

/* The first id of the range, or where this user namespace does not map it
 * (a user-namespaced container), the one id_map_pick chooses (0 when
 * nothing but root is mapped: main.c then runs rootless). */
static uint32_t host_id_here(bool uid, const struct rr_id_range *r)
{
    struct id_map m;
    struct rr_error ignored;
    uint32_t id = 0;

    if (id_map_read_self(uid, &m, &ignored) < 0 || id_map_has(&m, r->first))
        return r->first;
    return id_map_pick(&m, &id) ? id : r->first;
}

/* Every id of the range is mapped where revrun runs, for uids and gids. */
static bool range_mapped_here(const struct rr_id_range *r)
{
    struct id_map m;
    struct rr_error ignored;

    for (int uid = 0; uid < 2; uid++)
        if (id_map_read_self(uid, &m, &ignored) < 0 || !id_map_covers(&m, r->first, r->count))
            return false;
    return true;
}

/* As root inside a user namespace, an id it does not map cannot own the
 * exec fifo nor be written to a child's map: said here, not as EINVAL. */
static int judge_mapped(uint32_t id, const char *what, struct rr_error *err)
{
    struct id_map m;
    char desc[256];
    uint32_t pick = 0;

    if (id_map_read_self(what[0] == 'u', &m, err) < 0)
        return -1;
    if (id_map_has(&m, id))
        return 0;
    id_map_describe(&m, desc, sizeof(desc));
    if (id_map_pick(&m, &pick))
        return rr_fail(err, 0,
                       "linux.%sMappings: host id %u is not mapped in the user namespace revrun "
                       "runs in (this is a user-namespaced container: %s); use one that is, "
                       "such as %u, or `revrun spec` here, which picks it",
                       what, id, desc, pick);
    return rr_fail(err, 0,
                   "linux.%sMappings: host id %u is not mapped in the user namespace revrun runs "
                   "in (it maps %s)",
                   what, id, desc);
}

static int judge_map(const struct rr_id_mapping *m, size_t n, uint32_t inside, uint32_t own,
                     bool rootless, const struct rr_id_range *r, const char *what,
                     uint32_t *host, struct rr_error *err)
{
    if (n == 0) {
        *host = rootless ? own : host_id_here(what[0] == 'u', r);
        return rootless ? 0 : judge_mapped(*host, what, err);
    }
    if (n != 1 || m[0].size != 1 || m[0].container_id != inside)
        return rr_fail(err, 0,
                       "linux.%sMappings: exactly one mapping of size 1 for the process's "
                       "%s (%u) is supported",
                       what, what, inside);
    if (rootless && m[0].host_id != own)
        return rr_fail(err, 0,
                       "linux.%sMappings: running without root, the host id must be your own "
                       "(%u), not %u",
                       what, own, m[0].host_id);
    if (!rootless && m[0].host_id == 0)
        return rr_fail(err, 0, "linux.%sMappings: the container user must not be host root",
                       what);
    *host = m[0].host_id;
    return rootless ? 0 : judge_mapped(*host, what, err);
}

static bool in_range(const struct rr_id_range *r, uint32_t id)
{
    return id >= r->first && id - r->first < r->count;
}

/* As root, containers never share a host id of the range: no mapping in
 * the config takes a free one at create (HOST_IDS_ANY), a mapping into the
 * range claims exactly that one (HOST_IDS_EXACT, refused while another
 * container holds it). Ids outside the range, rootless, and a user
 * namespace that does not map the range: as judged (HOST_IDS_FIXED). */
static int judge_host_ids(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_id_range *r = &p->host_range;
    bool u_in = in_range(r, p->host_uid), g_in = in_range(r, p->host_gid);

    p->host_ids = HOST_IDS_FIXED;
    if (p->rootless)
        return 0;
    if (c->linux.n_uid_mappings == 0 && c->linux.n_gid_mappings == 0) {
        if (range_mapped_here(r))
            p->host_ids = HOST_IDS_ANY;
        return 0;
    }
    if (u_in && g_in && p->host_uid != p->host_gid)
        return rr_fail(err, 0,
                       "linux.gidMappings: inside revrun's host id range %u-%u a container's "
                       "host gid is its host uid (%u), not %u; or remove both mappings and "
                       "revrun gives the container an id of its own",
                       r->first, r->first + (r->count - 1), (unsigned)p->host_uid,
                       (unsigned)p->host_gid);
    if (u_in || g_in)
        p->host_ids = HOST_IDS_EXACT;
    return 0;
}

static int judge_identity(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    uint32_t hu, hg;

    if (c->process.has_no_new_privileges && !c->process.no_new_privileges)
        return rr_fail(err, 0, "process.noNewPrivileges: revrun always sets it; remove false");
    p->host_range = (struct rr_id_range){POLICY_HOST_IDS_FIRST, POLICY_HOST_IDS_COUNT};
    if (!p->rootless && policy_load_host_ids(PROFILE_POLICY_FILE, &p->host_range, err) < 0)
        return -1;
    if (judge_map(c->linux.uid_mappings, c->linux.n_uid_mappings, c->process.uid,
                  (uint32_t)getuid(), p->rootless, &p->host_range, "uid", &hu, err) < 0 ||
        judge_map(c->linux.gid_mappings, c->linux.n_gid_mappings, c->process.gid,
                  (uint32_t)getgid(), p->rootless, &p->host_range, "gid", &hg, err) < 0)
        return -1;
    p->uid = c->process.uid;
    p->gid = c->process.gid;
    p->host_uid = hu;
    p->host_gid = hg;
    return judge_host_ids(c, p, err);
}

/* Options with a ',' or control bytes cannot be told apart from two options
 * once joined for libmount: refused. */
static int join_options(const struct rr_strv *opts, const char *path, char **out,
                        struct rr_error *err)
{
    size_t len = 1;
    char *s;

    for (size_t i = 0; i < opts->n; i++) {
        for (const char *c = opts->v[i]; *c; c++)
            if (*c == ',' || (unsigned char)*c < 0x20 || *c == '"')
                return rr_fail(err, 0, "%s.options[%zu]: invalid character", path, i);
        len += strlen(opts->v[i]) + 1;
    }
    s = calloc(1, len);
    if (s == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < opts->n; i++) {
        if (i > 0)
            strcat(s, ",");
        strcat(s, opts->v[i]);
    }
    *out = s;
    return 0;
}

/* Filesystem options a mount type may take; anything else is refused. */
static bool fs_option_allowed(enum mount_kind kind, const char *opt)
{
    static const char *const tmpfs[] = {"size", "mode", "nr_inodes", "uid", "gid", NULL};
    static const char *const devpts[] = {"newinstance", "ptmxmode", "mode", "gid", NULL};
    static const char *const proc[] = {"hidepid", "subset", NULL};
    const char *const *allowed = kind == MOUNT_TMPFS    ? tmpfs
                                 : kind == MOUNT_DEVPTS ? devpts
                                 : kind == MOUNT_PROC   ? proc
                                                        : NULL;
    size_t klen = strcspn(opt, "=");

    for (; allowed && *allowed; allowed++)
        if (strlen(*allowed) == klen && strncmp(*allowed, opt, klen) == 0)
            return true;
    return false;
}

static int split_fs_options(const char *fs, enum mount_kind kind, struct mount_plan *mp,
                            const char *path, struct rr_error *err)
{
    const char *p = fs;

    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ",");
        char opt[256];
        if (n >= sizeof(opt))
            return rr_fail(err, 0, "%s.options: option too long", path);
        memcpy(opt, p, n);
        opt[n] = '\0';
        if (!fs_option_allowed(kind, opt))
            return rr_fail(err, 0, "%s.options: \"%s\" is not supported for this mount type",
                           path, opt);
        if (strv_push(&mp->fs_options, opt) < 0)
            return rr_fail(err, ENOMEM, "%s", path);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static const struct {
    const char *name;
    unsigned long flag;
    bool rec;
} propagations[] = {
    {"shared", MS_SHARED, false},         {"rshared", MS_SHARED, true},
    {"slave", MS_SLAVE, false},           {"rslave", MS_SLAVE, true},
    {"private", MS_PRIVATE, false},       {"rprivate", MS_PRIVATE, true},
    {"unbindable", MS_UNBINDABLE, false}, {"runbindable", MS_UNBINDABLE, true},
};

static int propagation_by_name(const char *name, unsigned long *flag, bool *rec)
{
    for (size_t k = 0; k < sizeof(propagations) / sizeof(propagations[0]); k++)
        if (strcmp(propagations[k].name, name) == 0) {
            *flag = propagations[k].flag;
            *rec = propagations[k].rec;
            return 0;
        }
    return -1;
}

/* An engine mount's propagation option (the last one given, as the kernel
 * would end up with applying them in turn); none: 0. */
static void propagation_of(const struct rr_strv *options, unsigned long *flag, bool *rec)
{
    *flag = 0;
    *rec = false;
    for (size_t i = 0; i < options->n; i++)
        (void)propagation_by_name(options->v[i], flag, rec);
}

/* OCI mount options -> mount attributes. nosuid and nodev are forced on
 * every mount but devpts (the device nodes revrun binds into /dev are
 * separate mounts that keep their own flags); binds are read-only unless
 * "rw" is explicit; shared propagation (which could leak mounts back to the
 * host) is refused. */
static int judge_options(const struct rr_mount *m, struct mount_plan *mp, const char *path,
                         bool engine, bool *data_ignored, struct rr_error *err)
{
    _cleanup_free_ char *optstr = NULL;
    _cleanup_free_ char *vfs = NULL;
    _cleanup_free_ char *fs = NULL;
    unsigned long flags = 0;

    if (strv_contains(&m->options, "suid") || strv_contains(&m->options, "dev"))
        return rr_fail(err, 0, "%s.options: suid and dev are not allowed", path);
    if (join_options(&m->options, path, &optstr, err) < 0)
        return -1;
    if (rr_libmnt_load(err) < 0)
        return rr_wrap(err, "%s.options", path);
    if (mnt_split_optstr(optstr, NULL, &vfs, &fs, 0, 0) != 0)
        return rr_fail(err, 0, "%s.options: cannot parse", path);
    if (vfs != NULL && mnt_optstr_get_flags(vfs, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)) != 0)
        return rr_fail(err, 0, "%s.options: cannot parse", path);
    if (flags & ((engine ? 0 : MS_SHARED) | MS_MOVE | MS_REMOUNT | MS_MANDLOCK | MS_SILENT))
        return rr_fail(err, 0, "%s.options: shared propagation, move and remount are refused",
                       path);
    if (engine)
        propagation_of(&m->options, &mp->propagation, &mp->propagation_rec);
    /* devpts holds only the pty nodes of its own instance, which nodev
     * would make unusable. */
    mp->attr = MOUNT_ATTR_NOSUID | (mp->kind == MOUNT_DEVPTS ? 0 : MOUNT_ATTR_NODEV);
    if (flags & MS_NOEXEC)
        mp->attr |= MOUNT_ATTR_NOEXEC;
    if (flags & MS_NOATIME)
        mp->attr |= MOUNT_ATTR_NOATIME;
    else if (flags & MS_STRICTATIME)
        mp->attr |= MOUNT_ATTR_STRICTATIME;
    if (flags & MS_NODIRATIME)
        mp->attr |= MOUNT_ATTR_NODIRATIME;
    /* revrun's own bundles: binds read-only unless "rw"; an engine's, as
     * the runtime spec has them (read-write unless "ro"): the engine's
     * binds are its own files (/etc/hosts, /dev/shm), not the host's. */
    if ((flags & MS_RDONLY) ||
        (mp->kind == MOUNT_BIND && !engine && !strv_contains(&m->options, "rw")))
        mp->attr |= MOUNT_ATTR_RDONLY;
    mp->recursive = mp->kind == MOUNT_BIND && (flags & MS_REC) != 0;
    /* A bind has no filesystem to take data options: the kernel ignores
     * them, and so do runc and an engine's configs here; revrun's own
     * bundles refuse them (a typo there is the operator's). */
    *data_ignored = engine && mp->kind == MOUNT_BIND && fs != NULL && fs[0] != '\0';
    if (*data_ignored)
        return 0;
    if (mp->kind == MOUNT_BIND && fs != NULL && fs[0] != '\0')
        return rr_fail(err, 0, "%s.options: \"%s\" does not apply to a bind mount", path, fs);
    return split_fs_options(fs, mp->kind, mp, path, err);
}

static bool path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int judge_mount(const struct rr_config *c, size_t i, struct mount_plan *mp,
                       struct rr_error *err)
{
    static const struct {
        const char *type;
        enum mount_kind kind;
    } kinds[] = {{"bind", MOUNT_BIND},
                 {"tmpfs", MOUNT_TMPFS},
                 {"proc", MOUNT_PROC},
                 {"devpts", MOUNT_DEVPTS},
                 {"mqueue", MOUNT_MQUEUE}};
    const struct rr_mount *m = &c->mounts[i];
    char path[64];
    size_t k;

    snprintf(path, sizeof(path), "mounts[%zu]", i);
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strcmp(kinds[k].type, m->type) == 0)
            break;
    if (k == sizeof(kinds) / sizeof(kinds[0]))
        return rr_fail(err, 0, "%s.type: \"%s\" is not supported (bind, tmpfs, proc, devpts, "
                               "mqueue)", path, m->type);
    if (strcmp(m->destination, "/") == 0 || path_within(m->destination, c->revrun.checkout_path))
        return rr_fail(err, 0,
                       "%s.destination: would cover the root or the checkout at %s", path,
                       c->revrun.checkout_path);
    *mp = (struct mount_plan){.kind = kinds[k].kind, .source = m->source,
                              .destination = m->destination};
    mp->is_dev = mp->kind == MOUNT_TMPFS && strcmp(m->destination, "/dev") == 0;
    if (mp->kind == MOUNT_PROC && strcmp(m->destination, "/proc") != 0)
        return rr_fail(err, 0, "%s: proc may only be mounted at /proc", path);
    bool ignored = false;
    return judge_options(m, mp, path, false, &ignored, err);
}

/* A read-write bind must not overlap a host directory revrun itself writes
 * what the operator is shown: `run --out` (vetted when the agent exits)
 * and a job's results (the change set, summary and report of `review
 * --out`). Reaching either directly, the agent could plant symlinks or
 * rewrite the summary after the vetting. A directory not made yet is
 * compared by the absolute path the caller gave. */
static int judge_bind_keeps_off(const char *src, const char *dir, const char *what, size_t i,
                                struct rr_error *err)
{
    char real[PATH_MAX];

    if (dir == NULL)
        return 0;
    if (realpath(dir, real) == NULL) {
        if (errno != ENOENT)
            return rr_fail(err, errno, "%s %s", what, dir);
        if (snprintf(real, sizeof(real), "%s", dir) >= (int)sizeof(real))
            return rr_fail(err, ENAMETOOLONG, "%s", what);
    }
    if (strcmp(src, "/") == 0 || path_within(src, real) || path_within(real, src))
        return rr_fail(err, 0, "mounts[%zu]: a read-write bind of %s would reach %s %s", i,
                       src, what, real);
    return 0;
}

/* A bind lands nowhere revrun builds itself (the kernel's /proc and /sys,
 * the container's /dev); a read-write one is a host path the agent writes
 * to directly, outside the vetted change set: allowed when written (the
 * config says it; `--bind ...:rw` says it once more on the command line),
 * and refused where it would reach the checkout itself (write-back would
 * be bypassed), the directories revrun hands results in, or the host's
 * system trees. */
static int judge_bind(const struct rr_config *c, size_t i, struct profile *p,
                      struct rr_error *err)
{
    static const char *const no_dest[] = {"/proc", "/sys", "/dev"};
    static const char *const no_rw[] = {"/proc", "/sys", "/dev", "/usr", "/etc", "/bin",
                                        "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
                                        "/run", "/var"};
    const struct rr_mount *m = &c->mounts[i];
    const struct mount_plan *mp = &p->mounts[i];
    char src[PATH_MAX], lower[PATH_MAX];

    for (size_t k = 0; k < sizeof(no_dest) / sizeof(no_dest[0]); k++)
        if (path_within(m->destination, no_dest[k]))
            return rr_fail(err, 0, "mounts[%zu].destination: a bind over %s is refused", i,
                           no_dest[k]);
    if (mp->attr & MOUNT_ATTR_RDONLY)
        return 0;
    if (realpath(m->source, src) == NULL)
        return rr_fail(err, errno, "mounts[%zu].source %s", i, m->source);
    if (realpath(c->revrun.lower, lower) == NULL)
        return rr_fail(err, errno, "revrun.lower %s", c->revrun.lower);
    if (strcmp(src, "/") == 0 || path_within(src, lower) || path_within(lower, src))
        return rr_fail(err, 0, "mounts[%zu]: a read-write bind of %s would reach the checkout %s",
                       i, src, lower);
    if (judge_bind_keeps_off(src, c->revrun.out, "revrun.out", i, err) < 0 ||
        judge_bind_keeps_off(src, c->revrun.results, "the results directory", i, err) < 0)
        return -1;
    for (size_t k = 0; k < sizeof(no_rw) / sizeof(no_rw[0]); k++)
        if (path_within(src, no_rw[k]))
            return rr_fail(err, 0, "mounts[%zu]: %s may only be bound read-only", i, src);
    return 0;
}

/* revrun.out (`run --out DIR`): the agent writes /out, a tmpfs capped at
 * the upper's size (it wrote 3 GiB into a bound host directory against a
 * 1 GiB upper), never the host directory itself; when it exits, only the
 * regular files and directories are copied there (runtime/container/
 * outdir.c): symlinks to host secrets and fifos planted for whoever
 * collects the directory are removed and reported. */
static int judge_out(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    struct mount_plan *mp;

    p->out_dir = c->revrun.out;
    p->out_size = c->revrun.upper_size;
    if (p->out_dir == NULL)
        return 0;
    for (size_t i = 0; i < p->n_mounts; i++)
        if (path_within(p->mounts[i].destination, "/out") ||
            path_within("/out", p->mounts[i].destination))
            return rr_fail(err, 0, "revrun.out: mounts[%zu] covers /out", i);
    mp = &p->mounts[p->n_mounts++]; /* judge_mounts left room */
    *mp = (struct mount_plan){.kind = MOUNT_OUT, .destination = "/out",
                              .attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    return 0;
}

static int judge_mounts(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    /* room for the devpts of judge_terminal and the /out of judge_out */
    p->mounts = calloc(c->n_mounts + 2, sizeof(*p->mounts));
    if (p->mounts == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    for (size_t i = 0; i < c->n_mounts; i++) {
        p->n_mounts++;
        if (judge_mount(c, i, &p->mounts[i], err) < 0)
            return -1;
        if (p->mounts[i].kind == MOUNT_BIND && judge_bind(c, i, p, err) < 0)
            return -1;
    }
    return judge_out(c, p, err);
}

/* process.terminal: the agent gets a fresh pty of a devpts instance of its
 * own (never a terminal of the host) as its controlling terminal and stdio;
 * the master goes to the caller through --console-socket. A devpts is added
 * at /dev/pts unless the config mounts one there. Without it, the agent has
 * no controlling terminal at all. */
static int judge_terminal(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    static const char *const devpts_opts[] = {"newinstance", "ptmxmode=0666", "mode=0620"};
    struct mount_plan *mp;
    bool have_dev = false;

    p->terminal = c->process.terminal;
    /* Without one, the caller's terminal (a `revrun run ... &` or a
     * detached create on a shell's tty) is never input for the agent: it
     * would read what the operator types to the shell (a password). */
    p->stdio_no_tty_input = !p->terminal;
    if (!p->terminal)
        return 0;
    for (size_t i = 0; i < p->n_mounts; i++) {
        if (p->mounts[i].kind == MOUNT_DEVPTS && strcmp(p->mounts[i].destination, "/dev/pts") == 0)
            return 0;
        have_dev = have_dev || p->mounts[i].is_dev;
    }
    if (!have_dev)
        return rr_fail(err, 0, "process.terminal: needs a tmpfs mounted at /dev for the pty");
    mp = &p->mounts[p->n_mounts++]; /* judge_mounts left room for one */
    *mp = (struct mount_plan){.kind = MOUNT_DEVPTS, .destination = "/dev/pts",
                              .attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC};
    if (push_all(&mp->fs_options, devpts_opts, sizeof(devpts_opts) / sizeof(devpts_opts[0])) < 0)
        return rr_fail(err, ENOMEM, "process.terminal");
    return 0;
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
            if (p->allow_nested_sandboxes && path_within(from[k]->v[i], "/proc"))
                continue;
            if (strv_push(to[k], from[k]->v[i]) < 0)
                return rr_fail(err, ENOMEM, "masked paths");
        }
    p->masked_paths = &p->masked;
    p->readonly_paths = &p->readonly;
    return 0;
}

static int landlock_rule(struct profile *p, const char *path, enum landlock_access access)
{
    struct landlock_rule *v =
        realloc(p->landlock_rules, (p->n_landlock_rules + 1) * sizeof(*p->landlock_rules));

    if (v == NULL)
        return -1;
    p->landlock_rules = v;
    v[p->n_landlock_rules++] = (struct landlock_rule){path, access};
    return 0;
}

/* Landlock, under the mounts: the agent reads everywhere, and writes only to
 * the checkout (the overlay), to read-write tmpfs and binds (/tmp, $HOME,
 * /dev/shm, --out) and to the existing nodes of /dev, whatever a mount would
 * allow: a mistake in setting the mounts up (a root or a /dev left
 * writable, a bind missing its read-only flag) does not become write access.
 * Its own stdio files (a log file it was started with) stay reopenable
 * through /dev/stdout, terminals do not (reopening one would make it the
 * controlling terminal). Off with nested sandboxes: the kernel never lets a
 * Landlock-restricted process mount, and bwrap and unshare must. Required
 * unless revrun.bestEffort lists "landlock". */
static int judge_landlock(struct profile *p, struct rr_error *err)
{
    int r;

    p->landlock = LANDLOCK_OFF;
    if (p->allow_nested_sandboxes)
        return 0;
    p->landlock = profile_best_effort(p, "landlock") ? LANDLOCK_BEST_EFFORT : LANDLOCK_REQUIRED;
    p->landlock_stdio = !p->terminal;
    r = landlock_rule(p, "/", LANDLOCK_READ);
    if (r == 0)
        r = landlock_rule(p, p->checkout_path, LANDLOCK_WRITE);
    /* a worktree's git bookkeeping (index, objects, refs) goes to scratch */
    if (r == 0 && p->git_common.shown)
        r = landlock_rule(p, p->git_common.dest, LANDLOCK_WRITE);
    for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        if (m->is_dev || m->kind == MOUNT_DEVPTS)
            r = landlock_rule(p, m->destination, LANDLOCK_DEVICES);
        else if (m->kind != MOUNT_PROC && !(m->attr & MOUNT_ATTR_RDONLY))
            r = landlock_rule(p, m->destination, LANDLOCK_WRITE);
    }
    if (r < 0)
        return rr_fail(err, ENOMEM, "landlock rules");
    return 0;
}

static const char *env_value(const struct rr_strv *env, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
            return env->v[i] + n + 1;
    return NULL;
}

/* revrun.home, homeFiles, artifacts: HOME must be a tmpfs of the config's
 * (a bind would make the copy a write to the host); that tmpfs is then made
 * by the monitor, seeded by copy (never bound: nothing of the seed on the
 * host can be changed by the agent), and kept until destroy, so the
 * artifacts can be copied out after the agent has ended. */
static int judge_home(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const char *home = env_value(&c->process.env, "HOME");
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
        &(struct lower_view){p->checkout_path, NULL, env_value(&c->process.env, "HOME")}, err);
}

/* ---- a worktree's git directories ---- */

/* Where C may be shown inside: a place no other part of the container
 * holds. Its mount points are made in the container's own root or in a
 * tmpfs of the config (never in a bound host directory, which would be a
 * write to the host), away from the checkout, HOME and the trees revrun
 * builds itself. NULL when it may go there, or why not. */
static const char *git_common_place(const struct rr_config *c, const struct profile *p,
                                    const char *dest)
{
    static const char *const reserved[] = {"/proc", "/sys", "/dev", "/etc", "/out"};
    static char why[PATH_MAX + 128];
    const char *home = env_value(&c->process.env, "HOME");

    if (strcmp(dest, "/") == 0)
        return "it would be the container's root";
    if (path_within(dest, p->checkout_path) || path_within(p->checkout_path, dest))
        return "it would overlap the checkout's place inside";
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
        if (path_within(dest, reserved[i]) || path_within(reserved[i], dest)) {
            snprintf(why, sizeof(why), "it would lie in %s, which revrun builds itself",
                     reserved[i]);
            return why;
        }
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        if (path_within(m->destination, dest)) {
            snprintf(why, sizeof(why), "it would cover mounts[%zu] (%s)", i, m->destination);
            return why;
        }
        if (!path_within(dest, m->destination))
            continue;
        if (m->kind != MOUNT_TMPFS || m->is_dev ||
            (home != NULL && strcmp(m->destination, home) == 0)) {
            snprintf(why, sizeof(why),
                     "it would lie under mounts[%zu] (%s), where revrun makes no mount point",
                     i, m->destination);
            return why;
        }
    }
    return NULL;
}

/* dest: C's place inside; host: on the host. The .git file's path names
 * G (relative: to the checkout, which is checkout_path inside and lower
 * outside); C is G's grandparent, as git makes it (C/worktrees/NAME), and
 * G's commondir must lead there inside too. 1, or 0 with why. */
static int git_common_paths(struct profile *p, const struct rr_gitwt *w)
{
    char gin[PATH_MAX], gout[PATH_MAX], cd[PATH_MAX];
    char *why = p->git_common.why;
    size_t wl = sizeof(p->git_common.why), n;

    if (rr_path_join_norm(p->checkout_path, w->gitdir_text, gin, sizeof(gin)) < 0 ||
        rr_path_join_norm(p->lower, w->gitdir_text, gout, sizeof(gout)) < 0)
        return snprintf(why, wl, "the path its .git names is too long"), 0;
    /* both end in /worktrees/NAME (check_beneath made NAME the last one) */
    for (int k = 0; k < 2; k++) {
        char *g = k == 0 ? gin : gout, *s = strrchr(g, '/');
        *s = '\0';
        s = strrchr(g, '/');
        if (s == NULL || strcmp(s, "/worktrees") != 0 || s == g)
            return snprintf(why, wl, "the path its .git names does not end in "
                                     "worktrees/%s", w->name), 0;
        *s = '\0';
    }
    snprintf(p->git_common.dest, sizeof(p->git_common.dest), "%s", gin);
    snprintf(p->git_common.host, sizeof(p->git_common.host), "%s", gout);
    n = strlen(gin);
    if (snprintf(gin + n, sizeof(gin) - n, "/worktrees/%s", w->name) >= (int)(sizeof(gin) - n) ||
        rr_path_join_norm(gin, w->commondir_text, cd, sizeof(cd)) < 0 ||
        strcmp(cd, p->git_common.dest) != 0)
        return snprintf(why, wl, "its commondir (%s) does not lead to the worktrees/ parent git "
                                 "itself would find inside", w->commondir_text), 0;
    return 1;
}

/* The host path is C itself (a bind or a hard link could show G elsewhere). */
static int git_common_same(struct profile *p, const struct rr_gitwt *w)
{
    _cleanup_close_ int fd = open(p->git_common.host, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;

    if (fd < 0 || fstat(fd, &st) < 0 || st.st_dev != w->common_st.st_dev ||
        st.st_ino != w->common_st.st_ino) {
        snprintf(p->git_common.why, sizeof(p->git_common.why),
                 "%s is not the common git directory its commondir names", p->git_common.host);
        return 0;
    }
    p->git_common.dev = st.st_dev;
    p->git_common.ino = st.st_ino;
    p->git_common.mode = st.st_mode & 07777;
    return 1;
}

/* A worktree checkout: git inside works as in a plain clone only if it
 * finds the main repository's git directory C. It is shown (read-only,
 * writes to scratch) when common/gitwt.h proves it this checkout's, it
 * fits a place of its own inside, kernel overlayfs serves the views, and
 * no credential is in its configuration (a token there refuses the
 * review, as in a plain checkout's .git). Not shown: the container is made
 * as before, and why says why git will not work inside. */
/* What of C git in a linked worktree never reads (it has its own index,
 * HEAD and per-worktree refs in G) and that holds the other checkouts'
 * uncommitted work: the main checkout's index (names and blob ids of what
 * is staged there) and its stash (the tip and every entry's reflog line).
 * Absent inside, git stash there makes the agent's own, in scratch. */
static const char *const git_common_hidden[] = {"index", "refs/stash", "logs/refs/stash", NULL};

static int judge_git_common(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    _cleanup_close_ int lower = -1;
    struct rr_gitwt w;
    const char *place;
    int k;

    memset(&p->git_common, 0, sizeof(p->git_common));
    lower = open(p->lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (lower < 0)
        return rr_fail(err, errno, "revrun.lower: %s", p->lower);
    if (!rr_gitwt_is_gitfile(lower))
        return 0;
    if (c->revrun.git_worktree_hide) {
        snprintf(p->git_common.why, sizeof(p->git_common.why),
                 "revrun.git.worktree is \"hide\"");
        return 0;
    }
    k = rr_gitwt_open(lower, &w, p->git_common.why, sizeof(p->git_common.why), err);
    if (k < 0)
        return -1;
    if (k > 0) {
        k = git_common_paths(p, &w) && git_common_same(p, &w);
        if (k && (place = git_common_place(c, p, p->git_common.dest)) != NULL) {
            snprintf(p->git_common.why, sizeof(p->git_common.why), "its git directory %s: %s",
                     p->git_common.dest, place);
            k = 0;
        }
        if (k && p->backend == RR_BACKEND_FUSE) {
            snprintf(p->git_common.why, sizeof(p->git_common.why),
                     "revrun.overlay \"fuse\": the git directories are shown through kernel "
                     "overlayfs only");
            k = 0;
        }
        if (k && lower_refuse_git_common(p->git_common.host, w.common_fd, p->lower,
                                         &(struct lower_view){p->checkout_path,
                                                              p->git_common.dest,
                                                              env_value(&c->process.env, "HOME")},
                                         err) < 0) {
            rr_gitwt_close(&w);
            return -1;
        }
        snprintf(p->git_common.keep, sizeof(p->git_common.keep), "%s", w.name);
        p->git_common.hidden = git_common_hidden;
        rr_gitwt_close(&w);
    }
    p->git_common.shown = k > 0;
    if (!p->git_common.shown)
        p->git_common.dest[0] = p->git_common.host[0] = '\0';
    return 0;
}

/* ---- git inside ---- */

/* git inside sees the checkout through the idmapped lower (root) or a user
 * namespace: owners, inode numbers and the device differ from what the
 * checkout's index recorded, so the first `git status` would re-hash every
 * file and rewrite the index (a change under .git for nothing, and seconds
 * on a big tree). Comparing only mtime and size is git's own setting for
 * such views (core.checkStat=minimal, core.trustctime=false): an edit still
 * shows, since writing a file sets its mtime. Given as command-line-level
 * config (GIT_CONFIG_COUNT), which the checkout's .git/config cannot
 * override; a process.env that sets GIT_CONFIG_COUNT itself keeps its own.
 * The same settings are also the sandbox's system configuration
 * (/etc/gitconfig, written by rootfs.c): agents and tools that run git with
 * a cleaned environment (dropping every GIT_CONFIG_* variable, as Claude
 * Code does for some of its own git calls) still get them. */
static const char *const git_env[] = {
    "GIT_CONFIG_COUNT=2",
    "GIT_CONFIG_KEY_0=core.checkStat",
    "GIT_CONFIG_VALUE_0=minimal",
    "GIT_CONFIG_KEY_1=core.trustctime",
    "GIT_CONFIG_VALUE_1=false",
};

static const char git_system_config[] =
    "# revrun: the checkout is seen through an idmap or a user namespace, so\n"
    "# owners, inodes and the device differ from what its index recorded:\n"
    "# compare mtime and size only (runtime/confine/profile.c, judge_git_env)\n"
    "[core]\n"
    "\tcheckStat = minimal\n"
    "\ttrustctime = false\n";

static int judge_git_env(struct profile *p, struct rr_error *err)
{
    if (p->lower == NULL)
        return 0;
    p->git_system_config = git_system_config;
    if (env_has(p->env, "GIT_CONFIG_COUNT"))
        return 0;
    if (p->env != &p->env_owned)
        for (size_t i = 0; i < p->env->n; i++)
            if (strv_push(&p->env_owned, p->env->v[i]) < 0)
                return rr_fail(err, ENOMEM, "environment");
    for (size_t i = 0; i < sizeof(git_env) / sizeof(git_env[0]); i++)
        if (strv_push(&p->env_owned, git_env[i]) < 0)
            return rr_fail(err, ENOMEM, "environment");
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
    if (judge_namespaces(c, p, err) < 0 || judge_identity(c, p, err) < 0 ||
        judge_lower(c, p, err) < 0 || judge_mounts(c, p, err) < 0 ||
        judge_terminal(c, p, err) < 0 || judge_hardening(c, p, err) < 0 ||
        judge_git_common(c, p, err) < 0 ||
        judge_landlock(p, err) < 0 || judge_egress(c, p, err) < 0 || judge_home(c, p, err) < 0 ||
        judge_git_env(p, err) < 0) {
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
    if (build_syscall_rules(p, err) < 0) {
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

static int note(struct profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
            note(&out->p, "exec: process.capabilities.%s: only what the container was granted",
                 rr_cap_set_names[s]) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    if (proc->process.has_no_new_privileges && !proc->process.no_new_privileges &&
        note(&out->p, "exec: process.noNewPrivileges: set anyway (revrun's floor)") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (proc->process.apparmor_profile != NULL &&
        (c->eng.apparmor_profile == NULL ||
         strcmp(proc->process.apparmor_profile, c->eng.apparmor_profile) != 0) &&
        note(&out->p, "exec: process.apparmorProfile: the container's applies") < 0)
        return rr_fail(err, ENOMEM, "notes");
    out->p.uid = proc->process.uid;
    out->p.gid = proc->process.gid;
    return 0;
}

int profile_exec(const struct profile *container, const struct rr_config *proc,
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
    out->rules = calloc(container->n_syscall_rules ? container->n_syscall_rules : 1,
                        sizeof(*out->rules));
    if (out->rules == NULL)
        return rr_fail(err, ENOMEM, "exec: syscall rules");
    /* Nor is an exec of this process recorded: the monitor holds no
     * listener for it, and the rule would fail every exec with ENOSYS. */
    out->p.n_syscall_rules = 0;
    for (size_t i = 0; i < container->n_syscall_rules; i++) {
        if (container->syscall_rules[i].report == SYSCALL_RECORD)
            continue;
        out->rules[out->p.n_syscall_rules] = container->syscall_rules[i];
        out->rules[out->p.n_syscall_rules++].report = false;
    }
    out->p.syscall_rules = out->rules;
    out->p.record_execs = false;
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
        {"cpu-period", req->cpu_period},
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

int profile_helper_floor(struct profile *p, struct rr_error *err)
{
    memset(p, 0, sizeof(*p));
    if (build_syscall_rules(p, err) < 0) {
        profile_free(p);
        return -1;
    }
    return 0;
}

void profile_free(struct profile *p)
{
    strv_free(&p->notes);
    strv_free(&p->eng.sysctl_inside);
    strv_free(&p->eng.device_rules);
    strv_free(&p->eng.sysctl_joined);
    for (size_t i = 0; i < p->n_mounts; i++)
        strv_free(&p->mounts[i].fs_options);
    free(p->mounts);
    p->mounts = NULL;
    p->n_mounts = 0;
    free(p->syscall_rules);
    p->syscall_rules = NULL;
    p->n_syscall_rules = 0;
    free(p->landlock_rules);
    p->landlock_rules = NULL;
    p->n_landlock_rules = 0;
    strv_free(&p->masked);
    strv_free(&p->readonly);
    strv_free(&p->env_owned);
}

/* ==== an engine's config ====
 *
 * containerd's runc shim, podman's conmon and docker send ordinary OCI
 * bundles with the image as root.path. revrun honours what it can and
 * tightens the rest to its floor, one note per field; nothing here widens
 * what a review config may ask for (profile_build is untouched by it). */

static int note(struct profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct profile *p, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    return strv_push(&p->notes, line);
}

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
 * the right type: runc's checks). user, mount and cgroup are the container's
 * own. */
static int engine_namespaces(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    unsigned bit_index = 0;

    p->clone_flags = 0;
    for (size_t i = 0; i < sizeof(engine_ns) / sizeof(engine_ns[0]); i++) {
        while ((1u << bit_index) != engine_ns[i].bit)
            bit_index++;
        const char *path = c->linux.ns_path[bit_index];
        if (!(c->linux.namespaces & engine_ns[i].bit) &&
            note(p, "linux.namespaces: \"%s\" added (revrun always isolates it%s)",
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
    return 0;
}

static bool ranges_meet(uint32_t a, uint32_t na, const struct rr_id_range *r)
{
    return (uint64_t)a < (uint64_t)r->first + r->count && r->first < (uint64_t)a + na;
}

/* An engine's own mappings may name host ids the engine manages (subuid
 * ranges), never a real or system user's (below the floor), a review's
 * (hostIds) or another engine container's block (engineIds): review2 F9. */
static int engine_map(const struct rr_id_mapping *m, size_t n, const char *what,
                      const struct rr_id_range ranges[2], struct rr_id_mapping *out,
                      size_t *n_out, struct profile *p, struct rr_error *err)
{
    static const char *const range_name[2] = {"hostIds (reviews' ids)",
                                              "engineIds (engine containers' blocks)"};
    uint32_t base = p->eng.host_base;

    if (n == 0) {
        out[0] = (struct rr_id_mapping){0, base, PROFILE_ENGINE_MAP_SIZE};
        *n_out = 1;
        if (note(p, "linux.%sMappings: none given; container %ss 0-%u are host %ss %u-%u", what,
                 what, PROFILE_ENGINE_MAP_SIZE - 1, what, base,
                 base + (PROFILE_ENGINE_MAP_SIZE - 1)) < 0)
            return rr_fail(err, ENOMEM, "notes");
        return 0;
    }
    if (n > 8)
        return rr_fail(err, 0, "linux.%sMappings: at most 8 mappings", what);
    for (size_t i = 0; i < n; i++) {
        if (m[i].host_id == 0)
            return rr_fail(err, 0, "linux.%sMappings[%zu]: host %s 0 is never mapped into a "
                                   "container", what, i, what);
        if (m[i].host_id < POLICY_HOST_IDS_FLOOR)
            return rr_fail(err, 0, "linux.%sMappings[%zu]: host %s %u is below %u (real and "
                                   "system users' ids are never mapped into a container)",
                           what, i, what, m[i].host_id, POLICY_HOST_IDS_FLOOR);
        for (int k = 0; k < 2; k++)
            if (ranges_meet(m[i].host_id, m[i].size, &ranges[k]))
                return rr_fail(err, 0, "linux.%sMappings[%zu]: host %ss %u-%u meet the policy's "
                                       "%s %u-%u",
                               what, i, what, m[i].host_id, m[i].host_id + (m[i].size - 1),
                               range_name[k], ranges[k].first,
                               ranges[k].first + (ranges[k].count - 1));
        out[i] = m[i];
    }
    *n_out = n;
    return 0;
}

static bool in_map(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return true;
    return false;
}

static bool host_flag(const char *path, char want)
{
    char c = 0;
    FILE *f = fopen(path, "re");

    if (f == NULL)
        return false;
    if (fread(&c, 1, 1, f) != 1)
        c = 0;
    fclose(f);
    return c == want;
}

static int engine_identity(const struct rr_config *c, const char *policy_file, struct profile *p,
                           struct rr_error *err)
{
    struct engine_plan *e = &p->eng;
    struct rr_id_range ranges[2];

    if (p->rootless)
        return rr_fail(err, EPERM, "an engine's config needs revrun running as root (rootless "
                                   "engines are not supported yet)");
    if (policy_load_host_ids(policy_file, &ranges[0], err) < 0 ||
        policy_load_engine_ids(policy_file, &ranges[1], err) < 0)
        return -1;
    if (engine_map(c->linux.uid_mappings, c->linux.n_uid_mappings, "uid", ranges, e->uid_map,
                   &e->n_uid_map, p, err) < 0 ||
        engine_map(c->linux.gid_mappings, c->linux.n_gid_mappings, "gid", ranges, e->gid_map,
                   &e->n_gid_map, p, err) < 0)
        return -1;
    /* The namespace's owner: the container root's host uid, else the first
     * mapped (never 0: engine_map refuses it) */
    e->ns_owner = e->uid_map[0].host_id;
    for (size_t i = 0; i < e->n_uid_map; i++)
        if (e->uid_map[i].container_id == 0)
            e->ns_owner = e->uid_map[i].host_id;
    if (!in_map(e->uid_map, e->n_uid_map, c->process.uid) ||
        !in_map(e->gid_map, e->n_gid_map, c->process.gid))
        return rr_fail(err, 0, "process.user: uid %u / gid %u is not mapped in the user namespace",
                       c->process.uid, c->process.gid);
    p->uid = c->process.uid;
    p->gid = c->process.gid;
    p->host_uid = e->uid_map[0].host_id;
    p->host_gid = e->gid_map[0].host_id;
    for (size_t i = 0; i < c->process.n_additional_gids; i++) {
        if (!in_map(e->gid_map, e->n_gid_map, c->process.additional_gids[i]))
            return rr_fail(err, 0, "process.user.additionalGids[%zu]: gid %u is not mapped", i,
                           c->process.additional_gids[i]);
        e->groups[e->n_groups++] = c->process.additional_gids[i];
    }
    e->umask = c->process.has_umask ? (mode_t)c->process.umask : 022;
    e->has_oom_score_adj = c->process.has_oom_score_adj;
    e->oom_score_adj = (int)c->process.oom_score_adj;
    if (e->oom_score_adj < 0) {
        e->oom_score_adj = 0;
        if (note(p, "process.oomScoreAdj: %lld tightened to 0 (a container is never preferred "
                    "over the host's processes)", (long long)c->process.oom_score_adj) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    /* As runc: a label for a security module this host does not run has
     * nothing to apply to; one it runs but revrun cannot apply refuses. */
    if (c->process.apparmor_profile != NULL && c->process.apparmor_profile[0] != '\0') {
        if (host_flag("/sys/module/apparmor/parameters/enabled", 'Y'))
            e->apparmor_profile = c->process.apparmor_profile;
        else if (note(p, "process.apparmorProfile: AppArmor is not enabled on this host; not "
                         "applied") < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    if ((c->process.selinux_label != NULL || c->linux.mount_label != NULL)) {
        if (access("/sys/fs/selinux/enforce", F_OK) == 0)
            return rr_fail(err, 0, "process.selinuxLabel: refused: revrun does not apply SELinux "
                                   "labels and this host enforces SELinux");
        if (note(p, "process.selinuxLabel/linux.mountLabel: SELinux is not enabled on this host; "
                    "not applied") < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
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
        note(p, "process.noNewPrivileges: false tightened to true") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (!p->eng.no_new_privs &&
        note(p, "process.noNewPrivileges: %s honoured (%s: %s.noNewPrivileges \"config\"); "
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
            note(p, "process.capabilities.%s: not granted (%s policy%s%s%s): %s",
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

static bool host_cgroup_v2(void)
{
    return access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
}

/* sysfs and cgroup mounts, tightened: read-only, and only where revrun's
 * user namespace may mount them; elsewhere an empty read-only tmpfs. */
static int engine_special_mount(const struct rr_mount *m, struct mount_plan *mp, size_t i,
                                struct profile *p, struct rr_error *err)
{
    bool sysfs = strcmp(m->type, "sysfs") == 0;
    bool placeholder = sysfs ? (p->eng.join_flags & CLONE_NEWNET) != 0 : !host_cgroup_v2();

    if (!strv_contains(&m->options, "ro") &&
        note(p, "mounts[%zu]: %s at %s tightened to read-only", i, m->type, m->destination) < 0)
        return rr_fail(err, ENOMEM, "notes");
    mp->kind = placeholder ? MOUNT_TMPFS : sysfs ? MOUNT_SYSFS : MOUNT_CGROUP2;
    mp->ro_after = placeholder;
    mp->attr = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
    if (placeholder &&
        (strv_push(&mp->fs_options, "size=4k") < 0 || strv_push(&mp->fs_options, "mode=0555") < 0 ||
         note(p, "mounts[%zu]: %s at %s replaced by an empty read-only tmpfs (%s)", i, m->type,
              m->destination,
              sysfs ? "the network namespace is joined, not revrun's: its sysfs cannot be "
                      "mounted from the container's user namespace"
                    : "cgroup v1 hierarchies cannot be mounted from revrun's user namespace") < 0))
        return rr_fail(err, ENOMEM, "mounts");
    return 0;
}

static int engine_mount(const struct rr_config *c, size_t i, struct mount_plan *mp,
                        struct profile *p, struct rr_error *err)
{
    static const struct {
        const char *type;
        enum mount_kind kind;
    } kinds[] = {{"bind", MOUNT_BIND},     {"tmpfs", MOUNT_TMPFS}, {"proc", MOUNT_PROC},
                 {"devpts", MOUNT_DEVPTS}, {"mqueue", MOUNT_MQUEUE}};
    const struct rr_mount *m = &c->mounts[i];
    char path[64];
    size_t k;

    snprintf(path, sizeof(path), "mounts[%zu]", i);
    if (strcmp(m->destination, "/") == 0)
        return rr_fail(err, 0, "%s.destination: would cover the root (root.path is the root)",
                       path);
    *mp = (struct mount_plan){.source = m->source, .destination = m->destination,
                              .fs_source = m->source};
    if (strcmp(m->type, "sysfs") == 0 || strcmp(m->type, "cgroup") == 0 ||
        strcmp(m->type, "cgroup2") == 0)
        return engine_special_mount(m, mp, i, p, err);
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strcmp(kinds[k].type, m->type) == 0)
            break;
    if (k == sizeof(kinds) / sizeof(kinds[0]))
        return rr_fail(err, 0, "%s.type: \"%s\" refused (bind, tmpfs, proc, devpts, mqueue, "
                               "sysfs and cgroup are what a container mounts)", path, m->type);
    mp->kind = kinds[k].kind;
    mp->is_dev = mp->kind == MOUNT_TMPFS && strcmp(m->destination, "/dev") == 0;
    if (mp->kind == MOUNT_PROC && strcmp(m->destination, "/proc") != 0)
        return rr_fail(err, 0, "%s: proc may only be mounted at /proc", path);
    bool ignored = false;
    if (judge_options(m, mp, path, true, &ignored, err) < 0)
        return -1;
    if (ignored && note(p, "%s.options: filesystem data options of a bind mount ignored (the "
                           "kernel takes none)", path) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

/* The config's masked and read-only paths, and revrun's always. */
static int engine_hardening(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_strv *from[] = {&c->linux.masked_paths, &c->linux.readonly_paths};
    const char *const *extra[] = {default_masked, default_readonly};
    size_t n_extra[] = {sizeof(default_masked) / sizeof(default_masked[0]),
                        sizeof(default_readonly) / sizeof(default_readonly[0])};
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
        if (added[0] != '\0' && note(p, "linux.%s: revrun's added: %s", field[k], added) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    p->masked_paths = &p->masked;
    p->readonly_paths = &p->readonly;
    return 0;
}

/* A sysctl is honoured only in a namespace of the container's (net.*: its
 * network namespace; kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*: its
 * IPC namespace; kernel.hostname/domainname: its UTS namespace); the rest
 * would change the host and is refused. Written by the container's init in
 * namespaces of its own, by revrun on the host side in joined ones. */
static int engine_sysctl_one(const char *kv, struct profile *p, struct rr_error *err)
{
    static const struct {
        const char *prefix;
        unsigned flag;
    } ns_of[] = {{"net.", CLONE_NEWNET},          {"kernel.shm", CLONE_NEWIPC},
                 {"kernel.msg", CLONE_NEWIPC},    {"kernel.sem", CLONE_NEWIPC},
                 {"fs.mqueue.", CLONE_NEWIPC},    {"kernel.hostname", CLONE_NEWUTS},
                 {"kernel.domainname", CLONE_NEWUTS}};
    const char *eq = strchr(kv, '=');
    char key[128], value[128];
    size_t k;

    snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
    snprintf(value, sizeof(value), "%s", eq + 1);
    for (k = 0; k < sizeof(ns_of) / sizeof(ns_of[0]); k++)
        if (strncmp(key, ns_of[k].prefix, strlen(ns_of[k].prefix)) == 0)
            break;
    if (k == sizeof(ns_of) / sizeof(ns_of[0]) || strncmp(key, "net.core.", 9) == 0)
        return rr_fail(err, 0, "linux.sysctl.%s: refused: not in a namespace of the container's "
                               "(it would change the host)", key);
    /* The ping range is in group ids as the writer sees them: kept within
     * the container's mapped groups (inside) or their host ids (joined). */
    if (strcmp(key, "net.ipv4.ping_group_range") == 0) {
        unsigned long lo = 0, hi = 0;
        uint32_t size = p->eng.gid_map[0].size, base = p->eng.gid_map[0].container_id;
        bool joined = (p->eng.join_flags & CLONE_NEWNET) != 0;
        if (sscanf(value, "%lu %lu", &lo, &hi) != 2 || lo > hi)
            return rr_fail(err, 0, "linux.sysctl.%s: expected two group ids", key);
        if (lo < base || hi >= (unsigned long)base + size) {
            unsigned long nlo = lo < base ? base : lo, nhi = hi >= (unsigned long)base + size
                                                                 ? (unsigned long)base + size - 1
                                                                 : hi;
            if (nlo > nhi)
                nlo = nhi = (unsigned long)base + size - 1;
            if (note(p, "linux.sysctl.%s: \"%s\" tightened to the mapped groups %lu-%lu", key,
                     value, nlo, nhi) < 0)
                return rr_fail(err, ENOMEM, "notes");
            lo = nlo;
            hi = nhi;
        }
        if (joined) {
            lo = lo - base + p->eng.gid_map[0].host_id;
            hi = hi - base + p->eng.gid_map[0].host_id;
        }
        snprintf(value, sizeof(value), "%lu %lu", lo, hi);
    }
    char line[300];
    snprintf(line, sizeof(line), "%s=%s", key, value);
    if (strv_push((p->eng.join_flags & ns_of[k].flag) ? &p->eng.sysctl_joined
                                                       : &p->eng.sysctl_inside,
                  line) < 0)
        return rr_fail(err, ENOMEM, "sysctl");
    return 0;
}

/* The runtime spec's default devices (and the container's ptys): what
 * runc allows after any rules, and revrun's fixed node set. */
static const struct {
    int64_t major, minor;
} default_devices[] = {{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 1}, {5, 2}, {136, -1}};

/* Does the last rule naming exactly c major:minor deny it? */
static bool denied_by_name(const struct rr_resources *r, int64_t major, int64_t minor)
{
    bool denied = false;

    for (size_t i = 0; i < r->n_devices; i++) {
        const struct rr_device_rule *d = &r->devices[i];
        if (d->type == 'c' && d->major == major && d->minor == minor)
            denied = !d->allow;
    }
    return denied;
}

static void device_text(char *out, size_t len, char type, int64_t major, int64_t minor,
                        const char *access)
{
    char ma[24] = "*", mi[24] = "*";

    if (type == 'a') {
        snprintf(out, len, "a");
        return;
    }
    if (major >= 0)
        snprintf(ma, sizeof(ma), "%lld", (long long)major);
    if (minor >= 0)
        snprintf(mi, sizeof(mi), "%lld", (long long)minor);
    snprintf(out, len, "%c %s:%s %s", type, ma, mi, access);
}

/* Device rules. The floor holds whatever they say: every mount but
 * revrun's own device binds and the container's devpts is nodev (the
 * image's root too), so the only reachable nodes are the fixed set, the
 * runtime spec's default devices. Where the host has the v1 devices
 * controller the rules are applied there as well, in order, after a deny
 * of everything; then, as runc does, the default devices are allowed again
 * (engines send a blanket deny, podman nothing else) unless a rule denies
 * one by its exact number: that one is denied (EPERM on open) though its
 * node is there. An allow of a wildcard is tightened away. Elsewhere one
 * line says the rules are not applied by a cgroup. */
static int engine_device_rules(const struct rr_resources *r, struct profile *p,
                               struct rr_error *err)
{
    struct rr_strv *out = &p->eng.device_rules;
    char line[64], denied[160] = "", mnt[PATH_MAX];

    if (r->n_devices == 0)
        return 0;
    for (size_t d = 0; d < sizeof(default_devices) / sizeof(default_devices[0]); d++)
        if (denied_by_name(r, default_devices[d].major, default_devices[d].minor))
            device_text(denied + strlen(denied), sizeof(denied) - strlen(denied), 'c',
                        default_devices[d].major, default_devices[d].minor, "");
    if (!cgroup_devices_v1_mount(mnt, sizeof(mnt))) {
        if (note(p, "linux.resources.devices: not applied by a cgroup (this host has no v1 devices "
                    "controller and revrun loads no BPF device program): every mount is nodev and "
                    "only the default devices are there%s%s", denied[0] ? "; denied by the rules "
                    "but reachable: " : "", denied) < 0)
            return rr_fail(err, ENOMEM, "notes");
        return 0;
    }
    if (strv_push(out, "deny a") < 0)
        return rr_fail(err, ENOMEM, "device rules");
    for (size_t i = 0; i < r->n_devices; i++) {
        const struct rr_device_rule *d = &r->devices[i];
        char text[48];
        device_text(text, sizeof(text), d->type, d->major, d->minor, d->access);
        if (d->allow && (d->type == 'a' || d->major < 0)) {
            if (note(p, "linux.resources.devices[%zu]: allow \"%s\" not applied (a wildcard: "
                        "revrun allows devices by number only)", i, text) < 0)
                return rr_fail(err, ENOMEM, "notes");
            continue;
        }
        snprintf(line, sizeof(line), "%s %s", d->allow ? "allow" : "deny", text);
        if (strv_push(out, line) < 0)
            return rr_fail(err, ENOMEM, "device rules");
    }
    for (size_t d = 0; d < sizeof(default_devices) / sizeof(default_devices[0]); d++) {
        if (denied_by_name(r, default_devices[d].major, default_devices[d].minor))
            continue;
        snprintf(line, sizeof(line), "allow ");
        device_text(line + 6, sizeof(line) - 6, 'c', default_devices[d].major,
                    default_devices[d].minor, "rwm");
        if (strv_push(out, line) < 0)
            return rr_fail(err, ENOMEM, "device rules");
    }
    if (denied[0] != '\0' &&
        note(p, "linux.resources.devices: denied by the rules (the v1 devices controller): %s"
                "(the nodes are there, opening one fails with EPERM)", denied) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

static int engine_resources(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    const struct rr_resources *r = &c->linux.resources;

    for (size_t i = 0; i < c->linux.sysctl.n; i++)
        if (engine_sysctl_one(c->linux.sysctl.v[i], p, err) < 0)
            return -1;
    /* cpu.shares and disableOOMKiller: written by cgroup_create where the
     * controller is had (cgroup v1 memory.oom_control, cpu.shares; v2
     * cpu.weight), one line where not; v2 has no OOM-killer switch. */
    if (r->disable_oom_killer && host_cgroup_v2() &&
        note(p, "linux.resources.memory.disableOOMKiller: not applied on cgroup v2 (no such "
                "switch; the kernel's OOM killer stays on)") < 0)
        return rr_fail(err, ENOMEM, "notes");
    if (r->blkio_weight > 0 &&
        note(p, "linux.resources.blockIO.weight: %lld not applied (a relative weight)",
             (long long)r->blkio_weight) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return engine_device_rules(r, p, err);
}

static int engine_root(const struct rr_config *c, const char *bundle, struct profile *p,
                       struct rr_error *err)
{
    static char root[4096];
    struct stat st;

    if (c->root.path[0] == '/')
        snprintf(root, sizeof(root), "%s", c->root.path);
    else if ((size_t)snprintf(root, sizeof(root), "%s/%s", bundle, c->root.path) >= sizeof(root))
        return rr_fail(err, ENAMETOOLONG, "root.path");
    if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
        return rr_fail(err, errno ? errno : ENOTDIR, "root.path %s", root);
    p->eng.root_path = root;
    p->root_readonly = c->root.readonly;
    /* The image's owners as the container's ids (what runc with a user
     * namespace gives): its root can use its own root filesystem. Writes
     * land on the image's layer as those owners; nosuid stays on. */
    {
        char real[4096];
        p->eng.idmap_root = realpath(root, real) != NULL && strcmp(real, "/") != 0;
    }
    if (!p->eng.idmap_root &&
        note(p, "root.path: the host's own root is not idmapped (its files keep their host "
                "owners)") < 0)
        return rr_fail(err, ENOMEM, "notes");
    /* Set on the container's / once every mount in its namespace is
     * private: "shared" links only mounts of that namespace, which revrun's
     * user namespace owns, so nothing propagates to the host's (the kernel
     * never propagates from a less privileged mount namespace, and the
     * container can neither mount nor make a namespace). */
    if (c->linux.rootfs_propagation != NULL &&
        propagation_by_name(c->linux.rootfs_propagation, &p->eng.root_propagation,
                            &p->eng.root_propagation_rec) < 0)
        return rr_fail(err, 0, "linux.rootfsPropagation: \"%s\" is not a propagation type",
                       c->linux.rootfs_propagation);
    return 0;
}

static uint32_t engine_host_of(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return m[i].host_id + (id - m[i].container_id);
    return UINT32_MAX;
}

/* Where the checkout's mount is, and that no other mount of the config
 * lands in it or covers it (the first would write into the overlay, the
 * second would hide it). */
static int checkout_mount(const struct rr_config *c, const struct profile *p, size_t *at,
                          struct rr_error *err)
{
    const char *dest = c->ann.checkout;

    *at = SIZE_MAX;
    for (size_t i = 0; i < p->n_mounts; i++) {
        const char *d = p->mounts[i].destination;
        if (path_within(d, dest) && path_within(dest, d)) {
            if (*at != SIZE_MAX)
                return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] and mounts[%zu] both "
                                       "have it as destination", dest, *at, i);
            *at = i;
        } else if (path_within(d, dest)) {
            return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] at %s is inside the "
                                   "checkout (refused: it would land in the overlay)", dest, i, d);
        } else if (*at != SIZE_MAX && path_within(dest, d)) {
            return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] at %s, after it, would "
                                   "cover the checkout", dest, i, d);
        }
    }
    if (*at == SIZE_MAX)
        return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: no mount of the config has it as "
                               "destination (name a bind mount's destination)", dest);
    if (p->mounts[*at].kind != MOUNT_BIND)
        return rr_fail(err, 0, RR_ANN_CHECKOUT " %s: mounts[%zu] is not a bind mount (the "
                               "checkout is a host directory)", dest, *at);
    return 0;
}

/* The checkout's lower is idmapped from its owner to the container's user,
 * so the container reads there whatever that owner may read. The owner is
 * whoever owns the bind's source, a path the engine's tenant picks: root
 * (/, /etc, a volume root) would hand it root's files, shadow included,
 * through a read-only bind; a system user or group (below 1000, Debian's
 * SYS_UID_MAX + 1: shadow, adm, disk, a daemon's data) as much. Those are
 * never a checkout's owner or group; when the policy lists
 * "checkoutOwners", the owner must be one of them. */
#define CHECKOUT_OWNER_FLOOR 1000u
static int checkout_owner_ok(const struct rr_config *c, const struct rr_policy *pol, size_t at,
                             const char *src, const struct stat *st, struct rr_error *err)
{
    if (st->st_uid < CHECKOUT_OWNER_FLOOR || st->st_gid < CHECKOUT_OWNER_FLOOR)
        return rr_fail(err, EPERM, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s is owned by "
                                   "uid %u gid %u: a tree of root or of a system id (below "
                                   "1000) is never a checkout (its owner would be idmapped "
                                   "to the container's user)",
                       c->ann.checkout, at, src, (unsigned)st->st_uid, (unsigned)st->st_gid);
    if (pol->n_checkout_owners == 0)
        return 0;
    for (size_t i = 0; i < pol->n_checkout_owners; i++)
        if (pol->checkout_owners[i] == st->st_uid)
            return 0;
    return rr_fail(err, EPERM, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s is owned by uid %u, "
                               "not one of the policy's checkoutOwners",
                   c->ann.checkout, at, src, (unsigned)st->st_uid);
}

/* io.revrun.checkout: the bind mount it names becomes the review profile's
 * checkout: its source the read-only lower (checked as revrun.lower is:
 * a directory holding no credential), a size-capped upper in revrun's
 * store, kernel overlayfs mounted by the container's init. The sizes are
 * the policy's at most; the export, a fresh name under its exportRoot. */
static int engine_checkout(const struct rr_config *c, const struct rr_policy *pol,
                           struct profile *p, struct rr_error *err)
{
    struct mount_plan *m;
    struct stat st;
    size_t at;

    if (c->ann.checkout == NULL)
        return 0;
    if (checkout_mount(c, p, &at, err) < 0)
        return -1;
    /* The upper is vetted once everything in the container has stopped,
     * which its init's end says only in a pid namespace of its own. */
    if (p->eng.join_flags & CLONE_NEWPID)
        return rr_fail(err, 0, RR_ANN_CHECKOUT ": refused with a joined pid namespace (a process "
                               "of the container could outlive its init and keep writing)");
    m = &p->mounts[at];
    m->kind = MOUNT_CHECKOUT;
    p->lower = m->source;
    p->checkout_path = m->destination;
    if (stat(p->lower, &st) < 0)
        return rr_fail(err, errno, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s",
                       c->ann.checkout, at, p->lower);
    if (!S_ISDIR(st.st_mode))
        return rr_fail(err, ENOTDIR, RR_ANN_CHECKOUT " %s: mounts[%zu].source %s",
                       c->ann.checkout, at, p->lower);
    if (checkout_owner_ok(c, pol, at, p->lower, &st, err) < 0)
        return -1;
    p->lower_owner = st.st_uid;
    p->lower_group = st.st_gid;
    p->lower_mode = st.st_mode & 0777;
    p->idmap_lower = true;
    p->eng.lower_as_uid = engine_host_of(p->eng.uid_map, p->eng.n_uid_map, p->uid);
    p->eng.lower_as_gid = engine_host_of(p->eng.gid_map, p->eng.n_gid_map, p->gid);
    /* the store's owner: the container's root, who mounts the overlay */
    p->host_uid = engine_host_of(p->eng.uid_map, p->eng.n_uid_map, 0);
    p->host_gid = engine_host_of(p->eng.gid_map, p->eng.n_gid_map, 0);
    if (p->host_uid == UINT32_MAX || p->host_gid == UINT32_MAX)
        return rr_fail(err, 0, RR_ANN_CHECKOUT ": the container's root (id 0) is not mapped");
    p->upper_size = c->ann.upper_size != 0 ? c->ann.upper_size : pol->upper_size;
    if (p->upper_size > pol->upper_size) {
        if (note(p, RR_ANN_UPPER_SIZE ": %llu bytes tightened to the policy's %llu",
                 (unsigned long long)p->upper_size, (unsigned long long)pol->upper_size) < 0)
            return rr_fail(err, ENOMEM, "notes");
        p->upper_size = pol->upper_size;
    }
    /* as revrun.overlay: auto (native when the kernel mounts it over this
     * checkout, else fuse-overlayfs), native, fuse */
    p->backend = c->ann.overlay < 0 ? RR_BACKEND_AUTO : (enum rr_backend)c->ann.overlay;
    if (c->ann.export_name != NULL) {
        snprintf(p->eng.export_root, sizeof(p->eng.export_root), "%s", pol->export_root);
        if ((size_t)snprintf(p->eng.export_dir, sizeof(p->eng.export_dir), "%s/%s",
                             pol->export_root, c->ann.export_name) >= sizeof(p->eng.export_dir))
            return rr_fail(err, ENAMETOOLONG, RR_ANN_EXPORT);
    }
    return lower_refuse_credentials(
        p->lower,
        &(struct lower_view){p->checkout_path, NULL, env_value(&c->process.env, "HOME")}, err);
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
    struct rr_policy pol;

    memset(p, 0, sizeof(*p));
    p->eng.host_base = host_base;
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
    if (engine_namespaces(c, p, err) < 0 || engine_identity(c, policy_file, p, err) < 0 ||
        engine_caps(c, policy_file, &pol, p, err) < 0 ||
        engine_nnp(c, &pol, policy_file, p, err) < 0 || engine_root(c, bundle, p, err) < 0)
        goto fail;
    for (size_t i = 0; i < c->n_mounts; i++) {
        p->n_mounts++;
        if (engine_mount(c, i, &p->mounts[i], p, err) < 0)
            goto fail;
    }
    if (engine_checkout(c, &pol, p, err) < 0)
        goto fail;
    if (judge_terminal(c, p, err) < 0 || engine_hardening(c, p, err) < 0 ||
        engine_resources(c, p, err) < 0)
        goto fail;
    if (c->ignored_top.n > 0) {
        char names[256] = "";
        for (size_t i = 0; i < c->ignored_top.n; i++)
            if (strlen(names) + strlen(c->ignored_top.v[i]) + 2 < sizeof(names)) {
                strcat(names, names[0] ? " " : "");
                strcat(names, c->ignored_top.v[i]);
            }
        if (note(p, "config.json: unknown top-level properties ignored (the runtime spec's "
                    "rule; unknown keys inside process, linux and mounts are refused): %s",
                 names) < 0)
            goto fail;
    }
    p->hostname = c->hostname;
    p->eng.domainname = c->domainname;
    /* A joined UTS namespace is another container's: its names stay. */
    if ((p->eng.join_flags & CLONE_NEWUTS) && (c->hostname != NULL || c->domainname != NULL) &&
        note(p, "hostname/domainname: not set (the UTS namespace is joined, not the "
                "container's own)") < 0)
        goto fail;
    p->args = &c->process.args;
    p->env = &c->process.env;
    p->cwd = c->process.cwd;
    p->rlimits = c->process.rlimits;
    p->n_rlimits = c->process.n_rlimits;
    /* The floor: revrun's rules always, the engine's filter stacked on it. */
    p->oci_seccomp = c->linux.seccomp.present ? &c->linux.seccomp : NULL;
    if (build_syscall_rules(p, err) < 0)
        goto fail;
    p->resources = c->linux.resources;
    /* v1 counts TCP buffers apart once limited: bounded at the memory
     * limit, as a review's (RR_UNSET: no memory limit) */
    p->tcp_memory_limit = p->resources.memory_limit;
    p->cgroups_path = c->linux.cgroups_path;
    if (p->cgroups_path != NULL && cgroups_path_ok(p->cgroups_path, err) < 0)
        goto fail;
    if (p->cgroups_path != NULL && p->cgroups_path[0] != '/') {
        snprintf(p->cgroups_buf, sizeof(p->cgroups_buf), "/revrun-engine/%s", p->cgroups_path);
        p->cgroups_path = p->cgroups_buf;
        if (note(p, "linux.cgroupsPath: relative \"%s\" placed at %s", c->linux.cgroups_path,
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
