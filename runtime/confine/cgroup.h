/* Resource ceilings through cgroups: v2 where the host has it (Ubuntu 24.04,
 * modern systemd hosts), v1 controllers where that is what it has (hybrid
 * hosts). A limit the host cannot enforce is refused, unless the config
 * lists it in revrun.bestEffort, in which case it is skipped with a warning.
 *
 * Paths are relative to each hierarchy's root: BASE/SCOPE/ID, where SCOPE
 * names the state root (two revruns with different --root never share a
 * cgroup, and sweep only judges its own). BASE is /revrun as root; rootless
 * it is a delegated place: on v1 /revrun-UID (an administrator creates and
 * chowns it), on v2 a sibling of the caller's own cgroup inside what systemd
 * delegates (user@UID.service). linux.cgroupsPath replaces all of it. */
#ifndef REVRUN_CGROUP_H
#define REVRUN_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/confine/profile/profile.h"

enum cg_version { CG_NONE = 0, CG_V1, CG_V2 };

enum {
    CG_MEMORY = 1u << 0,
    CG_PIDS = 1u << 1,
    CG_CPU = 1u << 2,
};

struct cgroup_plan {
    enum cg_version version;
    char path[PATH_MAX];   /* "/revrun/ID" */
    unsigned controllers;  /* the ones limits were written to */
    unsigned skipped;      /* wanted, best effort, and not had (CG_MEMORY...) */
    char why[256];         /* why a wanted controller could not be had, or "" */
    int why_errno;         /* its errno */
};

/* The hierarchies this host has, for `check` and for cgroup_create. */
struct cgroup_host {
    enum cg_version preferred;        /* v2 when it can give every controller revrun uses */
    char v2_mount[PATH_MAX];          /* "" when there is no cgroup2 mount */
    unsigned v2_controllers;          /* available at the v2 root */
    char v1_mount[3][PATH_MAX];       /* memory, pids, cpu ("" when absent) */
};

int cgroup_host_probe(struct cgroup_host *h, struct rr_error *err);

/* Create the cgroup and write the profile's limits. Warnings (best-effort
 * limits skipped) are appended to *warnings. out->version is CG_NONE when the
 * profile asks for no limit. */
int cgroup_create(const struct profile *p, const char *scope, const char *id,
                  struct cgroup_plan *out, struct rr_strv *warnings, struct rr_error *err);

/* BASE/SCOPE for this caller and version (see above). */
int cgroup_scope_dir(enum cg_version v, bool rootless, const char *scope, char *out, size_t len,
                     struct rr_error *err);

/* SCOPE for a state root path: 16 hex digits of its FNV-1a hash. */
void cgroup_scope_of(const char *state_root, char *out, size_t len);

/* Move pid into the cgroup (every hierarchy in use). */
int cgroup_join(const struct cgroup_plan *cg, pid_t pid, struct rr_error *err);

/* Kill whatever is left in it and remove it. Missing is success. */
int cgroup_remove(enum cg_version v, const char *path, struct rr_error *err);

/* Did the kernel's OOM killer act in this cgroup? */
bool cgroup_oom_killed(const struct cgroup_plan *cg);

const char *cgroup_version_name(enum cg_version v);
/* "memory", "pids", "cpu": the revrun.bestEffort names, by bit index. */
extern const char *const cgroup_limit_names[3];
enum cg_version cgroup_version_parse(const char *s);

/* ---- shared by cgroup_v1.c and cgroup_v2.c ---- */
int cg_write(int dirfd, const char *file, const char *value, struct rr_error *err);
int cg_read(int dirfd, const char *file, char *buf, size_t len);
/* mkdir -p of rel below the hierarchy mounted at mnt; returns a dir fd. */
int cg_mkdir(const char *mnt, const char *rel, struct rr_error *err);
/* The same, but the last component must be new (EEXIST otherwise). */
int cg_mkdir_leaf(const char *mnt, const char *rel, struct rr_error *err);
/* A hierarchy this caller cannot write (read-only cgroupfs, not delegated,
 * v2's no-internal-process rule): the error becomes cg->why, the plan holds
 * nothing, and 0 is returned so that cgroup_create judges each limit by
 * revrun.bestEffort. Any other error is returned as is (-1). */
bool cg_unwritable(const struct rr_error *err);
int cg_unavailable(struct cgroup_plan *cg, const struct rr_error *err);
int cg_kill_and_rmdir(const char *mnt, const char *rel, bool v2, struct rr_error *err);
/* The now-empty parents revrun made (the scope, then a base named revrun*). */
void cg_remove_empty_parents(const char *mnt, const char *path);

/* cg->path is set by the caller. */
#define CGROUP_V1_TCP_LIMIT "memory.kmem.tcp.limit_in_bytes"

/* Remove the still empty v1 directories cg's create made and disown cg
 * (CG_NONE), touching no other hierarchy: a later step met another
 * container's cgroup at the same path. */
void cgroup_v1_disown(struct cgroup_plan *cg);

int cgroup_v1_create(const struct cgroup_host *h, const struct profile *p, unsigned want,
                     struct cgroup_plan *cg, struct rr_error *err);
int cgroup_v2_create(const struct cgroup_host *h, const struct profile *p, unsigned want,
                     struct cgroup_plan *cg, struct rr_error *err);
int cgroup_v2_own(char *out, size_t len, struct rr_error *err);

#endif
