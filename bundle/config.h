/* config.json as plain structs: an OCI runtime-spec subset plus the `revrun`
 * section. bundle/ only parses and serialises; what the values allow the
 * agent to do is decided by runtime/confine/profile/. */
#ifndef REVRUN_CONFIG_H
#define REVRUN_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bundle/json.h"
#include "common/error.h"

struct rr_strv {
    char **v;
    size_t n;
};

enum rr_ns {
    RR_NS_USER = 1u << 0,
    RR_NS_MOUNT = 1u << 1,
    RR_NS_PID = 1u << 2,
    RR_NS_NET = 1u << 3,
    RR_NS_IPC = 1u << 4,
    RR_NS_UTS = 1u << 5,
    RR_NS_CGROUP = 1u << 6,
};

struct rr_mount {
    char *destination; /* absolute, inside the container */
    char *type;        /* bind, tmpfs, proc, devpts, mqueue */
    char *source;      /* bind: absolute host path; otherwise informational */
    struct rr_strv options;
};

struct rr_id_mapping {
    uint32_t container_id;
    uint32_t host_id;
    uint32_t size;
};

struct rr_rlimit {
    int resource; /* RLIMIT_* */
    uint64_t soft;
    uint64_t hard;
};

enum rr_seccomp_action {
    RR_SCMP_ALLOW,
    RR_SCMP_ERRNO,
    RR_SCMP_KILL,         /* SCMP_ACT_KILL (thread) */
    RR_SCMP_KILL_PROCESS, /* SCMP_ACT_KILL_PROCESS */
    RR_SCMP_TRAP,
    RR_SCMP_LOG,
};

enum rr_seccomp_op {
    RR_SCMP_OP_NE,
    RR_SCMP_OP_LT,
    RR_SCMP_OP_LE,
    RR_SCMP_OP_EQ,
    RR_SCMP_OP_GE,
    RR_SCMP_OP_GT,
    RR_SCMP_OP_MASKED_EQ,
};

struct rr_seccomp_arg {
    unsigned index;
    uint64_t value;
    uint64_t value_two;
    enum rr_seccomp_op op;
};

struct rr_seccomp_rule {
    struct rr_strv names;
    enum rr_seccomp_action action;
    uint32_t errno_ret; /* for RR_SCMP_ERRNO; EPERM when not given */
    struct rr_seccomp_arg args[6];
    size_t n_args;
};

/* linux.seccomp as OCI writes it. present == false: the section is absent and
 * revrun's built-in profile applies alone. */
struct rr_seccomp {
    bool present;
    enum rr_seccomp_action default_action;
    uint32_t default_errno;
    struct rr_strv architectures; /* SCMP_ARCH_X86_64, ... */
    struct rr_seccomp_rule *rules;
    size_t n_rules;
};

#define RR_UNSET (-1) /* int64 resource values not given */

/* An OCI hook: a program of the engine's, run by revrun on the host side
 * (or in the container's namespaces for createContainer/startContainer)
 * with the container's state on stdin. */
struct rr_hook {
    char *path;
    struct rr_strv args;
    struct rr_strv env;
    int64_t timeout; /* seconds; RR_UNSET: none */
};

enum rr_hook_kind {
    RR_HOOK_PRESTART,
    RR_HOOK_CREATE_RUNTIME,
    RR_HOOK_CREATE_CONTAINER,
    RR_HOOK_START_CONTAINER,
    RR_HOOK_POSTSTART,
    RR_HOOK_POSTSTOP,
    RR_HOOK_KINDS,
};

/* linux.resources.devices[]: one cgroup device rule. */
struct rr_device_rule {
    bool allow;
    char type;      /* 'a', 'c' or 'b' */
    int64_t major;  /* -1: any */
    int64_t minor;  /* -1: any */
    char access[4]; /* subset of "rwm" */
};

struct rr_resources {
    int64_t memory_limit; /* bytes */
    int64_t memory_swap;  /* bytes, memory + swap as OCI defines it */
    int64_t pids_limit;
    int64_t cpu_quota; /* microseconds per period */
    int64_t cpu_period;
    /* engine mode (an engine's config) */
    int64_t cpu_shares;   /* RR_UNSET or 0: not given */
    int64_t blkio_weight; /* RR_UNSET or 0: not given */
    bool disable_oom_killer;
    struct rr_device_rule *devices;
    size_t n_devices;
};

enum rr_backend { RR_BACKEND_AUTO, RR_BACKEND_NATIVE, RR_BACKEND_FUSE };

enum rr_network { RR_NET_NONE, RR_NET_HOST };

enum rr_egress_mode { RR_EGRESS_NONE, RR_EGRESS_BROKER };

/* revrun.egress: one brokered upstream reachable from inside through a relay
 * on loopback; the credential is read on the host and never enters. */
struct rr_egress {
    enum rr_egress_mode mode;
    char *upstream;              /* https://host[:port] */
    struct rr_strv allow;        /* allowed path prefixes; default "/v1/" */
    char *credential_file;       /* host file holding the secret, or */
    char *credential_env;        /* the name of an environment variable of the operator */
    char *header;                /* header that carries it upstream, e.g. "x-api-key" */
    char *header_prefix;         /* text before the secret, e.g. "Bearer " (may be NULL) */
    uint16_t port;               /* loopback port inside the container */
    struct rr_strv base_url_env; /* variables set in process.env, e.g. ANTHROPIC_BASE_URL */
    char *ca_file;               /* trust anchors for the upstream; NULL: the system's */
};

/* revrun.homeFiles: a file written into the agent's HOME before it starts
 * (a setting the agent reads, e.g. ~/.codex/config.toml). */
struct rr_home_file {
    char *path;    /* relative to HOME: no "..", no empty or "." component */
    char *content; /* the bytes, as text */
};

#define RR_HOME_FILES_MAX 64
#define RR_HOME_FILE_BYTES (64u << 10)
#define RR_ARTIFACTS_MAX 32

/* Write-back policy: which changes are refused or flagged, and the caps that
 * keep the stage bounded on an attacker-shaped upper. */
struct rr_writeback_policy {
    struct rr_strv protect; /* globs: a change matching one refuses the set */
    struct rr_strv warn;    /* globs: shown prominently, not refused */
    uint64_t max_files;
    uint64_t max_file_bytes;
    uint64_t max_total_bytes;
    uint32_t max_depth;
    uint32_t max_name_bytes;
    uint32_t max_path_bytes;
    /* revrun.writeback.ignored: "include" exports what the checkout's ignore
     * rules leave out of the change (false, "exclude", the default) */
    bool include_ignored;
};

/* Names that revrun.bestEffort may list: limits that may be skipped (with a
 * warning) when the host cannot enforce them. Anything else is refused. */
#define RR_BEST_EFFORT_NAMES "memory, pids, cpu, upperSize, landlock"
bool config_best_effort_known(const char *name);

struct rr_config {
    char *oci_version;

    struct {
        bool terminal;
        uint32_t uid;
        uint32_t gid;
        struct rr_strv args;
        struct rr_strv env;
        char *cwd;
        struct rr_rlimit *rlimits;
        size_t n_rlimits;
        bool no_new_privileges;
        bool has_no_new_privileges; /* the key was present */
        /* engine mode only (a review config refuses these) */
        uint32_t *additional_gids;
        size_t n_additional_gids;
        bool has_umask;
        uint32_t umask;
        bool has_oom_score_adj;
        int64_t oom_score_adj;
        bool has_capabilities;
        struct rr_strv caps[5]; /* bounding, effective, inheritable, permitted, ambient */
        char *apparmor_profile;
        char *selinux_label;
        uint32_t console_height, console_width; /* 0: not given */
    } process;

    struct {
        char *path; /* relative to the bundle or absolute */
        bool readonly;
    } root;

    char *hostname;
    char *domainname; /* engine mode */

    struct rr_mount *mounts;
    size_t n_mounts;

    struct {
        unsigned namespaces; /* RR_NS_* bits listed */
        struct rr_id_mapping *uid_mappings;
        size_t n_uid_mappings;
        struct rr_id_mapping *gid_mappings;
        size_t n_gid_mappings;
        struct rr_resources resources;
        struct rr_seccomp seccomp;
        struct rr_strv masked_paths;
        struct rr_strv readonly_paths;
        char *cgroups_path; /* NULL: revrun's default */
        /* engine mode only */
        char *ns_path[7];          /* by RR_NS_* bit index: join this namespace */
        struct rr_strv sysctl;     /* "key=value" */
        char *rootfs_propagation;
        char *mount_label;
    } linux;

    /* An engine's config: no `revrun` section. Its fields are honoured or
     * tightened to revrun's floor by profile_build_engine(). */
    bool engine;
    struct rr_hook *hooks[RR_HOOK_KINDS];
    size_t n_hooks[RR_HOOK_KINDS];
    struct rr_strv annotations; /* "key=value", for the hooks' state */
    /* An engine's top-level keys the runtime spec does not define: ignored,
     * as the spec says a runtime MUST, and named in one log line. Keys
     * inside process, linux, mounts (what confines) are still refused. */
    struct rr_strv ignored_top;
    /* io.revrun.* annotations (engine mode): revrun's own settings, since an
     * engine cannot send a `revrun` section. NULL/0: not given. What they
     * may ask is bounded by the host policy (bundle/policy.h). */
    struct {
        char *checkout;      /* io.revrun.checkout: a bind mount's destination */
        char *policy;        /* io.revrun.policy: a named policy of the host's file */
        char *export_name;   /* io.revrun.export: a name under the policy's exportRoot */
        uint64_t upper_size; /* io.revrun.upperSize */
        int overlay;         /* io.revrun.overlay: an rr_backend, or -1 */
    } ann;

    struct {
        char *lower;         /* host path of the checkout (absolute) */
        char *checkout_path; /* where it appears inside (absolute) */
        enum rr_backend overlay;
        /* revrun.git.worktree "hide" (true): a worktree checkout's main git
         * directory is not shown, git fails inside; "show" (false, the
         * default): shown with the other checkouts' state masked */
        bool git_worktree_hide;
        uint64_t upper_size;      /* bytes the agent may write into the upper */
        char *out;                /* host directory handed the agent's /out at its exit, or NULL */
        char *results;            /* host directory a job writes its results to, or NULL */
        uint64_t timeout_seconds; /* wall clock from start; 0: none */
        uint64_t min_free_space;  /* create refuses below this much free under the state root */
        bool nested_sandboxes;    /* allow new user/pid/mount namespaces inside */
        bool ptrace;              /* allow ptrace inside the container */
        bool activity_off;        /* revrun.activity "off": no record of the agent's execs */
        enum rr_network network;
        struct rr_strv best_effort;
        struct rr_writeback_policy writeback;
        struct rr_egress egress;
        char *home;                    /* host dir copied (never bound) into HOME; NULL: none */
        struct rr_home_file *home_files; /* written into HOME after the copy */
        size_t n_home_files;
        struct rr_strv artifacts;      /* "~/..." paths kept in OUT/artifacts after the run */
    } revrun;
};

/* Names of the capability sets in process.capabilities, in rr_config order. */
extern const char *const rr_cap_set_names[5];
extern const char *const rr_hook_kind_names[RR_HOOK_KINDS];

/* Parse a config tree. Unknown keys are refused everywhere except
 * `annotations`: a field revrun would silently ignore could be one that was
 * meant to confine, so ignoring it would fail open. */
int config_from_json(const struct json_node *root, struct rr_config *cfg, struct rr_error *err);

/* `revrun exec --process FILE`: a bare OCI process object, parsed with the
 * same rules as config.json's process (an engine's when engine); only
 * cfg->process is filled. */
int config_process_from_json(const struct json_node *proc, bool engine, struct rr_config *cfg,
                             struct rr_error *err);

/* Read and parse DIR/config.json (dirfd is the bundle directory). */
int config_load(int bundle_dirfd, struct rr_config *cfg, struct rr_error *err);

/* Serialise (for `revrun spec`); *out is NUL-terminated JSON, caller frees. */
int config_to_json(const struct rr_config *cfg, char **out, struct rr_error *err);

void config_free(struct rr_config *cfg);

/* Defaults that suit real reviews and stay bounded. */
int writeback_policy_defaults(struct rr_writeback_policy *p, struct rr_error *err);
void writeback_policy_free(struct rr_writeback_policy *p);

/* string vector helpers */
int strv_push(struct rr_strv *sv, const char *s);
void strv_free(struct rr_strv *sv);
bool strv_contains(const struct rr_strv *sv, const char *s);
/* The value of NAME in an environment list of NAME=VALUE strings, or NULL. */
const char *strv_env_get(const struct rr_strv *env, const char *name);

/* Parse "1G", "512M", "1048576" (binary units); false on junk or overflow. */
bool parse_size(const char *s, uint64_t *out);

#endif
