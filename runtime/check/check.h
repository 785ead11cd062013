/* revrun check: what this host can enforce, found without running anything
 * untrusted. Each probe adds lines to a report: what it found, and for a
 * failure its cause and its remedy. With a config, the command exits non-zero
 * when something the config needs is missing. */
#ifndef REVRUN_CHECK_H
#define REVRUN_CHECK_H

#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/container/ctx.h"

enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL, CHECK_INFO };

#define CHECK_MAX_ITEMS 64

/* Which layer refused a step, as seen from here (check_cause.c). A step may
 * have several: each must be lifted. */
enum check_cause {
    CAUSE_SECCOMP = 1u << 0,     /* an outer seccomp filter refuses the syscall */
    CAUSE_CAPS = 1u << 1,        /* CAP_SYS_ADMIN is not in CapEff */
    CAUSE_PROC_MASKED = 1u << 2, /* paths over /proc: the kernel refuses a new procfs */
    CAUSE_CGROUP_RO = 1u << 3,   /* the cgroup hierarchy is read-only or not ours */
    CAUSE_NO_FUSE = 1u << 4,     /* no /dev/fuse */
    CAUSE_APPARMOR = 1u << 5,    /* an AppArmor profile confines revrun */
    CAUSE_SELINUX = 1u << 6,     /* SELinux enforcing */
    CAUSE_AA_USERNS = 1u << 7,   /* Ubuntu's kernel.apparmor_restrict_unprivileged_userns */
    CAUSE_KERNEL = 1u << 8,      /* the kernel is too old for it */
};
#define CAUSE_COUNT 9

struct check_item {
    enum check_status status;
    char name[64];
    char detail[512];
    char remedy[1024];
    unsigned causes; /* enum check_cause bits, for a FAIL or WARN */
};

/* What this host is: read once, used to name causes and pick remedies. */
struct check_facts {
    int seccomp_mode;   /* /proc/self/status Seccomp: 0 none, 1 strict, 2 filter */
    uint64_t cap_eff;   /* CapEff */
    bool in_userns;     /* /proc/self/uid_map is not the initial one */
    char uid_map[128];  /* described, when in_userns */
    bool proc_masked;   /* something is mounted over a path below /proc */
    char proc_mask[128]; /* one such path */
    bool cgroup_ro;     /* the hierarchy revrun uses is mounted read-only */
    bool dev_fuse;      /* /dev/fuse exists */
    bool apparmor;      /* /sys/kernel/security/apparmor exists */
    char aa_label[128]; /* our AppArmor label ("unconfined", "docker-default (enforce)") */
    bool selinux;       /* /sys/fs/selinux exists */
    bool selinux_enforcing;
    bool aa_userns_sysctl; /* kernel.apparmor_restrict_unprivileged_userns exists and is 1 */
    unsigned kernel_major, kernel_minor;
    bool in_container;  /* /.dockerenv, /run/.containerenv or a container= environment */
};

struct check_report {
    bool rootless;
    const struct profile *profile; /* NULL without --bundle */
    const struct profile *shape;   /* the bundle's, or the default spec's: what steps probe */
    char scratch[PATH_MAX];        /* a directory of the check's own: lower/, mnt/, state/ */
    struct check_facts facts;
    struct check_item items[CHECK_MAX_ITEMS];
    size_t n;
    bool needed_missing; /* a FAIL on something the config needs */
    bool create_failed;  /* the scratch container could not be made or run */
    unsigned all_causes; /* every cause of a FAIL, for the summary */
    unsigned not_probed; /* steps an earlier refusal kept from being probed */
};

/* Add a line. `needed`: the config (if any) depends on it, so a FAIL makes
 * the command fail. Format strings are for the detail. */
void check_add(struct check_report *r, enum check_status st, bool needed, const char *name,
               const char *remedy, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The same, with the causes of a failing step and their remedies; the
 * remedy text is derived from the causes unless one is given. */
void check_add_step(struct check_report *r, enum check_status st, bool needed, const char *name,
                    unsigned causes, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* In a child: a user namespace with our uid mapped to 0, and a mount
 * namespace in it. Returns 0, or an errno with the failing step in msg. */
int check_enter_userns(char *msg, size_t len);

/* Run fn in a forked child; its message comes back in msg. Returns the errno
 * the child reported (0: success). A crash of the child is EIO. */
int check_in_child(int (*fn)(void *arg, char *msg, size_t len), void *arg, char *msg,
                   size_t len);

/* ---- facts and causes (check_facts.c, check_cause.c) ---- */
void check_read_facts(struct check_facts *f);
/* The steps create takes, as a probe can name them. */
enum check_step {
    STEP_CGROUP,      /* mkdir and write limits in the cgroup hierarchy */
    STEP_MOUNT_NS,    /* unshare(CLONE_NEWNS), the monitor's namespace */
    STEP_USERNS,      /* unshare(CLONE_NEWUSER) */
    STEP_CLONE,       /* clone with the container's namespaces */
    STEP_ID_MAP,      /* write the container's uid and gid maps */
    STEP_MOUNT,       /* fsopen/fsmount/move_mount of a tmpfs */
    STEP_IDMAP_LOWER, /* open_tree + mount_setattr(MOUNT_ATTR_IDMAP) */
    STEP_PROC,        /* a fresh procfs for the new pid namespace */
    STEP_PIVOT,       /* pivot_root into the assembled root */
    STEP_HOSTNAME,    /* sethostname in the new UTS namespace */
    STEP_LOOPBACK,    /* bring lo up in the new network namespace */
    STEP_CGROUP_NS,   /* unshare(CLONE_NEWCGROUP) */
    STEP_FUSE,        /* open /dev/fuse and mount fuse-overlayfs */
};
/* The layers that refuse step with errno e here (0: none found). Probes the
 * step's syscalls in a child to tell a seccomp filter from the rest. */
unsigned check_cause_of(const struct check_report *r, enum check_step step, int e);
/* One line per engine that lifts every cause in `causes`, into buf. */
void check_remedies(const struct check_facts *f, unsigned causes, bool rootless, char *buf,
                    size_t len);
/* "the outer container's seccomp filter, ..." */
void check_cause_text(const struct check_facts *f, unsigned causes, char *buf, size_t len);

/* ---- the scratch container and its steps ---- */
/* Create, start `true` and destroy a container of the profile's shape (the
 * bundle's config, or the default spec) over a scratch lower, in a state
 * root of its own: what create would say here. */
void check_scratch(struct check_report *r, const struct rr_ctx *ctx, const struct rr_config *cfg);
/* The whole of `revrun check`: prints the report to stdout (as one JSON
 * object with json); 0, or -1 when create would fail here or the bundle's
 * config needs what is missing. */
int check_run(const struct rr_ctx *ctx, const char *bundle, bool json);

/* `revrun check --json`: the report as one object (check_json.c); error:
 * what kept the check from finishing, or NULL. -1 when it cannot be
 * written (reported). */
int check_print_json(const struct check_report *r, const char *bundle,
                     const struct rr_error *error);

/* Every step of create, each probed on its own in a forked child, so that
 * one refusal does not hide the next. */
void check_steps(struct check_report *r);

/* Probes: one function per subsystem, each in the file of its subsystem. */
void check_kernel(struct check_report *r);
void check_userns(struct check_report *r);
void check_overlay(struct check_report *r);
void check_seccomp(struct check_report *r);
void check_cgroups(struct check_report *r);
void check_egress(struct check_report *r);
void check_landlock(struct check_report *r);
void check_fuse(struct check_report *r);
void check_host_ids(struct check_report *r);
void check_libs(struct check_report *r);

#endif
