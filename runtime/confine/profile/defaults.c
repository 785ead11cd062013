/* The default hardened config.json: what `revrun spec` prints. Its masked
 * and read-only paths are also added to every engine config (engine.c). */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

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
const char *const pf_default_masked[] = {
    "/proc/acpi",        "/proc/asound",     "/proc/interrupts", "/proc/kcore",
    "/proc/keys",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
    "/proc/sched_debug", "/proc/scsi",       "/sys/firmware",    "/sys/devices/virtual/powercap",
};
const char *const pf_default_readonly[] = {
    "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger",
};

const size_t pf_n_default_masked = sizeof(pf_default_masked) / sizeof(pf_default_masked[0]);
const size_t pf_n_default_readonly = sizeof(pf_default_readonly) / sizeof(pf_default_readonly[0]);

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
        pf_push_all(&c->process.env, default_env, sizeof(default_env) / sizeof(default_env[0])) < 0)
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
        pf_push_all(&c->linux.masked_paths, pf_default_masked, pf_n_default_masked) < 0 ||
        pf_push_all(&c->linux.readonly_paths, pf_default_readonly, pf_n_default_readonly) < 0 ||
        /* Landlock is a second layer under the mounts: applied wherever the
         * kernel has it (5.13+), skipped with a warning where it does not. */
        strv_push(&c->revrun.best_effort, "landlock") < 0 ||
        writeback_policy_defaults(&c->revrun.writeback, err) < 0) {
        config_free(c);
        return rr_fail(err, ENOMEM, "default config");
    }
    return 0;
}
