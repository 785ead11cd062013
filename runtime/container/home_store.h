/* The agent's HOME when the config seeds it or keeps artifacts from it
 * (profile: home_store): a tmpfs made by the monitor at STATE/home in its
 * own mount namespace, seeded by copy, bound by pid 1 at $HOME, and reached
 * after the agent has ended through the monitor's root (like the upper). */
#ifndef REVRUN_HOME_STORE_H
#define REVRUN_HOME_STORE_H

#include "common/error.h"
#include "common/treecopy.h"
#include "runtime/confine/profile/profile.h"

/* Caps of the seed copy (revrun.home). */
#define HOME_SEED_MAX_FILES 10000u
#define HOME_SEED_MAX_BYTES (256ull << 20)
#define HOME_SEED_MAX_DEPTH 32u

/* In the monitor, in its mount namespace: state_dir is the container's
 * state directory there. Does nothing unless p->home. */
int home_store_make(int state_dir, const struct profile *p, struct rr_error *err);

/* Caps of the artifacts copy (revrun.artifacts), for all paths together. */
#define ARTIFACTS_MAX_FILES 5000u
#define ARTIFACTS_MAX_BYTES (256ull << 20)
#define ARTIFACTS_MAX_DEPTH 24u

struct artifacts_report {
    struct rr_copy_report copy;  /* summed over the paths */
    size_t n_missing;            /* artifact paths that were not there */
};

/* Copy each "~/path" of artifacts from home_fd (the HOME tmpfs's root, as
 * the agent left it: hostile) into out_dir/path. Intermediate components
 * must be real directories (no symlink followed anywhere). */
int home_copy_artifacts(int home_fd, const struct rr_strv *artifacts, int out_dir,
                        struct artifacts_report *rep, struct rr_error *err);

#endif
