/* The confinement profile: the one place that decides what the agent can
 * reach. config.json says what the operator asked for; profile_build() turns
 * it into the exact plan the runtime executes (namespaces, identity, mounts,
 * environment, capabilities, seccomp switches, limits, network), refusing
 * what revrun does not allow. The code that executes the plan (rootfs.c,
 * caps.c, seccomp.c, cgroup*.c, init.c) makes no policy decision of its own,
 * so widening the agent's reach is always a diff to runtime/confine/profile/.
 * This header is that folder's one interface (README.md there says which
 * file decides what). */
#ifndef REVRUN_PROFILE_H
#define REVRUN_PROFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "bundle/policy.h"
#include "common/error.h"

/* The first of the unprivileged host ids the container user becomes when
 * revrun runs as root (the policy's hostIds range, 65536 ids by default): a
 * uid/gid that owns nothing, so an escape lands on a nobody, and one of its
 * own per container (idalloc.h), so containers are different users to the
 * kernel and its per-user limits. */
#define PROFILE_DEFAULT_HOST_ID POLICY_HOST_IDS_FIRST
/* The agent's identity inside. Not 0: agents such as Claude Code refuse to
 * skip their own permission prompts as root, and nothing needs root inside. */
#define PROFILE_DEFAULT_UID 1000u
#define PROFILE_DEFAULT_GID 1000u

/* One rule of revrun's own seccomp filter: the syscall fails with errnum
 * (when the optional argument test holds, and the second one too when
 * ne_arg is set). */
enum syscall_test {
    SYSCALL_ALWAYS,
    SYSCALL_ARG_MASKED_EQ, /* (arg & mask) == datum */
    SYSCALL_ARG_GE,        /* arg >= datum */
};

struct syscall_rule {
    const char *name;
    int errnum;
    enum syscall_test test;
    unsigned arg;
    uint64_t mask;
    uint64_t datum;
    unsigned ne_arg; /* 1 + the index of an argument that must also differ from ne */
    uint64_t ne;
    /* 0, or through the monitor (seccomp user notification):
     * SYSCALL_REPORT  still refused (EPERM), the attempt counted for the
     *                 report; the kernel answers ENOSYS if the monitor is
     *                 gone: refused all the same
     * SYSCALL_RECORD  not refused: the monitor records the call (the
     *                 activity record) and lets it run; ENOSYS without it */
    unsigned char report;
};
#define SYSCALL_REPORT 1
#define SYSCALL_RECORD 2

/* MOUNT_OUT: /out, a size-capped tmpfs of the monitor's (rootfs_fds.out_mfd)
 * whose regular files and directories go to revrun.out when the agent exits. */
enum mount_kind {
    MOUNT_BIND, MOUNT_TMPFS, MOUNT_PROC, MOUNT_DEVPTS, MOUNT_MQUEUE, MOUNT_OUT,
    MOUNT_SYSFS,   /* engine mode: read-only; of a host-owned network namespace, host_made */
    MOUNT_CGROUP2, /* engine mode: read-only, inside the container's cgroup namespace */
    MOUNT_CHECKOUT, /* engine mode: the bind io.revrun.checkout names, as an overlay (the
                     * bind's source the read-only lower, the upper in revrun's store) */
};

/* Landlock, the second filesystem layer: how the profile uses it. */
enum landlock_mode {
    LANDLOCK_OFF,         /* not applied (nested sandboxes: the kernel forbids mounting under it) */
    LANDLOCK_REQUIRED,    /* a host without Landlock refuses the config */
    LANDLOCK_BEST_EFFORT, /* applied where the kernel has it, skipped with a warning elsewhere */
};

/* What one Landlock rule grants beneath its path. Every access right the
 * kernel knows is handled: what no rule grants is denied. */
enum landlock_access {
    LANDLOCK_READ,    /* read files, list directories, execute */
    LANDLOCK_DEVICES, /* write, truncate and ioctl existing nodes; create or remove nothing */
    LANDLOCK_WRITE,   /* create, write, remove, rename: a tree the agent owns */
};

struct landlock_rule {
    const char *path; /* inside the container (borrowed) */
    enum landlock_access access;
};

struct mount_plan {
    enum mount_kind kind;
    const char *source;      /* bind: host path (borrowed from the config) */
    const char *destination; /* inside the container (borrowed) */
    uint64_t attr;           /* MOUNT_ATTR_* set on the new mount */
    bool recursive;          /* rbind */
    struct rr_strv fs_options; /* key=value passed to fsconfig (tmpfs size, mode, ...) */
    bool is_dev;             /* the /dev tmpfs: revrun adds the minimal device set */
    bool ro_after;           /* read-only once the mounts below it are made (placeholders) */
    const char *fs_source;   /* fresh filesystems: the "source" shown in mountinfo; NULL: none */
    /* HOME when revrun.home, homeFiles or artifacts are set: this tmpfs is
     * made by the monitor in its own mount namespace (seeded there) and
     * bound by pid 1, so that it outlives the agent for the artifacts. */
    bool home_store;
    /* engine mode: the propagation asked for (MS_SHARED, MS_SLAVE,
     * MS_PRIVATE, MS_UNBINDABLE; 0: none), set once every mount of the
     * container is private, so it only ever links mounts of this mount
     * namespace (owned by revrun's user namespace: nothing propagates to
     * the host's); propagation_rec: the r-prefixed form */
    unsigned long propagation;
    bool propagation_rec;
    /* engine mode: proc or mqueue of a joined pid or IPC namespace the
     * host's user namespace owns (not a pod's), sysfs of such a network
     * namespace (a CNI pod's too): made by create on the
     * host side in that namespace (runtime/container/engine_hostfs.c), the
     * container's user namespace holding no right to mount it; attached by
     * the init as a bind */
    bool host_made;
};

/* The engine host range: container ids 0..ENGINE_MAP_SIZE-1 become these
 * host ids when the engine gives no mapping. Apart from the review agent's
 * PROFILE_DEFAULT_HOST_ID, and owning nothing on the host. */
#define PROFILE_ENGINE_HOST_BASE 2100000000u
#define PROFILE_ENGINE_MAP_SIZE 65536u
/* Where the host's policy for engine configs lives. */
#define PROFILE_POLICY_FILE "/etc/revrun/policy.json"

/* A pod's user namespace, which runtime/container/engine_pod.c found by the
 * identity of the namespaces the config joins (a revrun container's of the
 * same state root): the container joins it, with its id maps, instead of
 * a user namespace and id block of its own. */
struct profile_pod {
    const char *owner; /* a container of the pod (for the note) */
    const struct rr_id_mapping *uid_map, *gid_map;
    size_t n_uid_map, n_gid_map;
    bool net_host_owned; /* its network namespace is the host user namespace's (no sysfs) */
};

/* What an engine's config becomes (profile_build_engine). */
struct engine_plan {
    const char *root_path;          /* absolute: the image, the container's root */
    struct rr_id_mapping uid_map[8], gid_map[8];
    size_t n_uid_map, n_gid_map;
    uint64_t caps[5];               /* granted, per rr_cap_set_names */
    gid_t groups[64];
    size_t n_groups;
    mode_t umask;
    bool has_oom_score_adj;
    int oom_score_adj;
    unsigned join_flags;            /* CLONE_NEW* joined by path (ns_path); CLONE_NEWUSER:
                                     * the pod's user namespace (pod) */
    const struct profile_pod *pod;  /* NULL: the user namespace is the container's own */
    const char *ns_path[7];         /* by RR_NS_* bit index */
    struct rr_strv sysctl_inside;   /* "key=value" written by the container's init */
    struct rr_strv sysctl_joined;   /* written host side, in a joined namespace */
    /* linux.resources.devices for the v1 devices controller, in order
     * ("deny a", "allow c 1:3 rwm"); empty: not applied by a cgroup */
    struct rr_strv device_rules;
    const char *domainname;
    const char *apparmor_profile;   /* NULL: none (or AppArmor is off on this host) */
    bool idmap_root;                /* the image through the container's mapping */
    /* a private upper (a tmpfs of root_upper_size bytes) over the image,
     * which is then mounted read-only: the container's writes never reach
     * root.path (root.c says when) */
    bool root_upper;
    uint64_t root_upper_size;
    dev_t root_dev;                 /* the directory judged: what create mounts */
    ino_t root_ino;
    uint32_t host_base;             /* ids 0-65535 without the engine's mappings */
    uint32_t ns_owner;              /* the host uid owning the user namespace: the
                                     * container root's (review2 F5), never 0 */
    /* linux.rootfsPropagation, as mount_plan.propagation, set on / after
     * the pivot */
    unsigned long root_propagation;
    bool root_propagation_rec;
    /* no_new_privs: always, unless the host policy lets the config decide */
    bool no_new_privs;
    /* io.revrun.checkout: the checkout's owner appears as the process's
     * user (these host ids); io.revrun.export: where its change set goes at
     * delete ("": nowhere), a fresh directory under the policy's exportRoot */
    uid_t lower_as_uid;
    gid_t lower_as_gid;
    char export_root[4096];
    char export_dir[4096];
    /* the policy's kubeletPodsDir: binds below it are the kubelet's volumes
     * (profile_kubelet_volume) */
    char kubelet_pods[4096];
    /* the pod's uid as containerd's CRI names it (io.kubernetes.cri.
     * sandbox-uid, one path component; "" when none): the only pod
     * directory whose tmpfs volumes are idmapped */
    char pod_uid[256];
    /* the policy's activityRoot: where the recorder keeps each finished
     * record as ID.jsonl ("": only in the state directory) */
    char activity_root[4096];
};

struct profile {
    const struct rr_config *cfg;
    bool rootless;
    /* An engine's config (profile_build_engine): the image as the root, the
     * engine's caller owns the process, no checkout. */
    bool engine;
    struct engine_plan eng;
    /* One line per field tightened to revrun's floor, for the caller to log. */
    struct rr_strv notes;

    /* identity: one uid and one gid mapped, container id -> host id */
    uid_t uid;
    gid_t gid;
    uid_t host_uid;
    gid_t host_gid;
    /* As root: HOST_IDS_ANY, create takes a free id of host_range and sets
     * host_uid = host_gid to it (the range's first until then);
     * HOST_IDS_EXACT, create claims host_uid (or host_gid) in the range;
     * HOST_IDS_FIXED, nothing to take (rootless, ids outside the range, a
     * user namespace that does not map the range). */
    enum { HOST_IDS_FIXED, HOST_IDS_ANY, HOST_IDS_EXACT } host_ids;
    struct rr_id_range host_range;

    /* the checkout */
    const char *lower;
    const char *checkout_path;
    enum rr_backend backend;
    uint64_t upper_size;
    /* revrun.out: the host directory the agent's /out is handed to, vetted,
     * at its exit (NULL: none); /out is a tmpfs of out_size bytes */
    const char *out_dir;
    uint64_t out_size;
    /* root only: the checkout's owner appears as the container user through
     * an idmapped lower, so the agent can change files it does not own on
     * the host (the checkout itself is never chowned). */
    bool idmap_lower;
    uid_t lower_owner;
    gid_t lower_group;
    mode_t lower_mode;
    /* A worktree checkout (its .git a gitfile, common/gitwt.h): the main
     * repository's git directory C, which git inside follows the gitfile
     * to. Shown (judge_git_common) at dest, where git inside looks for it,
     * as an overlay of its own: C read-only (idmapped like the checkout),
     * the upper scratch in the store, never applied; nothing else of the
     * main repository. Not shown: why says why git will not work inside
     * ("" for a checkout whose .git is no gitfile, or revrun.git.worktree
     * "hide"). Shown, C is not shown whole: of C/worktrees only keep (this
     * checkout's G) is there, and hidden (C-relative paths, NULL-ended)
     * are absent: what git in a linked worktree never reads and only the
     * other checkouts' uncommitted work is in (their index, the stash). */
    struct {
        bool shown;
        char keep[NAME_MAX + 1];
        const char *const *hidden;
        char dest[PATH_MAX]; /* inside the container */
        char host[PATH_MAX]; /* on the host: reopened there, identity checked */
        dev_t dev;
        ino_t ino;
        mode_t mode;
        char why[512];
    } git_common;

    unsigned clone_flags; /* CLONE_NEW* for the container */
    bool net_host;        /* sharing the host network: an explicit widening */
    /* names resolve to nothing, at once: a resolver on the container's
     * loopback answering NXDOMAIN, and resolv.conf pointing at it */
    bool dns_nxdomain;
    /* the sandbox's /etc/gitconfig (git's system level), or NULL: none */
    const char *git_system_config;

    struct mount_plan *mounts;
    size_t n_mounts;
    const struct rr_strv *masked_paths;   /* -> masked (the config's, minus what the */
    const struct rr_strv *readonly_paths; /*    nested profile leaves out) */
    struct rr_strv masked;
    struct rr_strv readonly;
    bool root_readonly;
    const char *hostname;

    /* what the process gets */
    const struct rr_strv *args;
    const struct rr_strv *env;
    const char *cwd;
    const struct rr_rlimit *rlimits;
    size_t n_rlimits;
    /* process.terminal: a fresh pty from the container's own devpts, its
     * master sent to the caller's console socket; otherwise no terminal. */
    bool terminal;
    /* no terminal asked for: a terminal the caller's stdio holds reaches
     * the agent as /dev/null on stdin and write-only on stdout and stderr,
     * so a backgrounded run cannot read the operator's keyboard */
    bool stdio_no_tty_input;

    /* seccomp: revrun's floor (rules below, always loaded) and, stacked on
     * it, the config's linux.seccomp when present */
    bool allow_nested_sandboxes;
    bool allow_ptrace;
    bool report_namespaces; /* the agent's namespace attempts are counted (not the helpers') */
    bool record_execs;      /* every exec of the agent goes through the monitor's record */
    struct syscall_rule *syscall_rules;
    size_t n_syscall_rules;
    const struct rr_seccomp *oci_seccomp;

    /* Landlock: read everywhere, write only where a rule says. stdio: the
     * process's own stdio files (not terminals) may be reopened through
     * /dev/stdout and /proc/self/fd. */
    enum landlock_mode landlock;
    struct landlock_rule *landlock_rules;
    size_t n_landlock_rules;
    bool landlock_stdio;

    /* egress: NULL, or the one brokered upstream (revrun.egress) and the
     * loopback port its relay listens on inside */
    const struct rr_egress *egress;
    uint16_t egress_port;
    struct rr_strv env_owned; /* process.env plus what the profile adds */

    /* HOME: the tmpfs mount at $HOME (a home_store), or NULL; what is
     * seeded into it and what is kept of it after the run */
    const struct mount_plan *home;
    const char *home_path;
    const char *home_seed;
    const struct rr_home_file *home_files;
    size_t n_home_files;
    const struct rr_strv *artifacts;

    /* limits */
    struct rr_resources resources;
    const char *cgroups_path; /* engine mode: linux.cgroupsPath, made absolute */
    /* in every cgroup hierarchy the host has, limited or not (engine mode:
     * the engine's and kubelet's parents hold for it, stats read it) */
    bool cgroup_everywhere;
    char cgroups_buf[512];
    unsigned dev_allowed;     /* bits of rootfs.c's device nodes that are bound */
    /* cgroup v1 keeps TCP socket buffers out of memory.limit_in_bytes and
     * counts them only once memory.kmem.tcp.limit_in_bytes is written: the
     * profile bounds them at the memory limit too (RR_UNSET: no memory
     * limit). v2 charges them to memory.max already. */
    int64_t tcp_memory_limit;
    uint64_t timeout_seconds;
    const struct rr_strv *best_effort;
};

/* Judge cfg against revrun's rules and build the plan. cfg must outlive p. */
int profile_build(const struct rr_config *cfg, bool rootless, struct profile *p,
                  struct rr_error *err);
void profile_free(struct profile *p);

/* An engine's config (cfg->engine): every field honoured or tightened to the
 * floor (a user namespace always, revrun's seccomp floor under the engine's
 * filter, masked and read-only paths, no_new_privs, capabilities only inside
 * the user namespace and only those policy_file allows), each tightening one
 * line in p->notes. bundle is the bundle's absolute path. */
int profile_build_engine(const struct rr_config *cfg, const char *bundle, const char *policy_file,
                         struct profile *p, struct rr_error *err);
/* The same, a config without uid/gidMappings given container ids 0-65535 as
 * host ids host_base.. (the block create took of the policy's engineIds);
 * profile_build_engine: the range's first block, for exec (which joins the
 * namespace and maps nothing) and tests. */
int profile_build_engine_at(const struct rr_config *cfg, const char *bundle,
                            const char *policy_file, uint32_t host_base, struct profile *p,
                            struct rr_error *err);
/* The same in a pod (pod != NULL): the pod's user namespace joined with the
 * namespaces the config names, its maps the container's. */
int profile_build_engine_pod(const struct rr_config *cfg, const char *bundle,
                             const char *policy_file, uint32_t host_base,
                             const struct profile_pod *pod, struct profile *p,
                             struct rr_error *err);

/* A bind of an engine's config whose source (src, opened from source) is
 * one of the kubelet's volumes, to be idmapped as the container's
 * (profile/volumes.c says what makes one): 1, else 0. */
int profile_kubelet_volume(const struct profile *p, int src, const char *source);

/* The default hardened config.json (`revrun spec`). lower may be NULL (the
 * current directory). */
int profile_default_config(struct rr_config *cfg, const char *lower, bool rootless,
                           struct rr_error *err);

/* The seccomp floor of revrun's host-side helpers (the egress broker, the
 * fuse-overlayfs daemon): only syscall rules, those of the agent's floor
 * without the config's widenings (nestedSandboxes, ptrace are the agent's,
 * never theirs) and without linux.seccomp (written for the agent).
 * profile_free() releases it. */
int profile_helper_floor(struct profile *p, struct rr_error *err);

bool profile_best_effort(const struct profile *p, const char *name);

/* `revrun exec`: the process an engine or an operator asks to run in a
 * container that exists, judged against that container's profile. The
 * result is the container's profile (namespaces, seccomp floor and filter,
 * Landlock, no capabilities it lacks, no_new_privs) with only the
 * process's own fields replaced: args, env, cwd, terminal, and rlimits
 * never above the container's. An engine's container: any identity its
 * user namespace maps, capabilities within the container's, umask and
 * groups of the process. out->p borrows from container and proc: never pass
 * it to profile_free; its notes (what was tightened, one line each) are its
 * own: strv_free(&out->p.notes). */
#define PROFILE_EXEC_RLIMITS 16
struct exec_profile {
    struct profile p;
    struct rr_rlimit rlimits[PROFILE_EXEC_RLIMITS];
    /* the container's syscall rules, reported ones made plain errors (no
     * monitor listens for an exec'd process): free() it */
    struct syscall_rule *rules;
};
/* record: the process's execs go to the container's recorder (engine
 * mode's activity record, runtime/container/recorder_execs.h): the
 * container's record rules are kept. */
int profile_exec(const struct profile *container, const struct rr_config *proc, bool record,
                 struct exec_profile *out, struct rr_error *err);

/* `revrun update`: limits may change, never be lifted: a limit the
 * container has cannot become unlimited, and every value is positive. */
int profile_judge_update(const struct profile *container, const struct rr_resources *req,
                         struct rr_error *err);

/* --preserve-fds (create and exec): the caller's fds 3.. cross into the
 * container as they are (podman's socket activation, a pipe), except what
 * would reach past its root: a directory (openat(fd, "..") walks the host's
 * tree, as runc's leaked-fd escapes did) or an O_PATH handle. EPERM. */
int profile_judge_passed_fd(int fd, struct rr_error *err);


#endif
