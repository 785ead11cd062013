/* What the files of runtime/confine/profile/ share among themselves: the
 * judges one file calls in another, and the helpers every judge uses.
 * Nothing outside this folder includes it (tests/layout-check.sh); the rest
 * of the tree calls profile.h. */
#ifndef REVRUN_PROFILE_INTERNAL_H
#define REVRUN_PROFILE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle/config.h"
#include "bundle/policy.h"
#include "common/error.h"
#include "runtime/confine/profile/profile.h"

/* plan.c: one line in p->notes (a field an engine's config had tightened) */
int pf_note(struct profile *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pf_push_all(struct rr_strv *sv, const char *const *items, size_t n);
/* path is dir or beneath it, by its components */
bool pf_path_within(const char *path, const char *dir);
bool pf_env_has(const struct rr_strv *env, const char *name);
const char *pf_env_value(const struct rr_strv *env, const char *name);

/* defaults.c: revrun's masked and read-only paths, added to an engine's */
extern const char *const pf_default_masked[];
extern const size_t pf_n_default_masked;
extern const char *const pf_default_readonly[];
extern const size_t pf_n_default_readonly;

/* syscalls.c: the seccomp floor, from p's switches (nested sandboxes,
 * ptrace, reported namespace attempts) */
/* The activity record's rules (the listener denial, execve and execveat
 * to the listener) into out (room for PF_RECORD_RULES); how many. */
#define PF_RECORD_RULES 3
size_t pf_record_rules(struct syscall_rule *out);
int pf_build_syscall_rules(struct profile *p, struct rr_error *err);

/* ids.c */
int pf_judge_identity(const struct rr_config *c, struct profile *p, struct rr_error *err);
int pf_engine_identity(const struct rr_config *c, const char *policy_file, struct profile *p,
                       struct rr_error *err);

/* mounts.c */
int pf_judge_mounts(const struct rr_config *c, struct profile *p, struct rr_error *err);
int pf_judge_terminal(const struct rr_config *c, struct profile *p, struct rr_error *err);
int pf_engine_mount(const struct rr_config *c, size_t i, struct mount_plan *mp,
                    struct profile *p, struct rr_error *err);
int pf_propagation_by_name(const char *name, unsigned long *flag, bool *rec);
bool pf_host_cgroup_v2(void);

/* landlock.c */
int pf_judge_landlock(struct profile *p, struct rr_error *err);

/* gitdirs.c */
int pf_judge_git_common(const struct rr_config *c, struct profile *p, struct rr_error *err);
int pf_judge_git_env(struct profile *p, struct rr_error *err);

/* root.c: an engine's root.path, idmapped or not, with a private upper or not */
int pf_engine_root(const struct rr_config *c, const char *bundle, const struct rr_policy *pol,
                   struct profile *p, struct rr_error *err);

/* checkout.c, sysctls.c, devices.c: parts of an engine's config */
int pf_engine_checkout(const struct rr_config *c, const struct rr_policy *pol,
                       struct profile *p, struct rr_error *err);
int pf_engine_sysctl_one(const char *kv, struct profile *p, struct rr_error *err);
int pf_engine_resources(const struct rr_config *c, struct profile *p, struct rr_error *err);

#endif
