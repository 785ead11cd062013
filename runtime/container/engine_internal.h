/* What engine.c (create), engine_state.c (its state directory) and
 * engine_after.c (start and delete) share; included by those only. */
#ifndef REVRUN_ENGINE_INTERNAL_H
#define REVRUN_ENGINE_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "runtime/confine/cgroup.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/confine/seccomp.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_checkout.h"
#include "runtime/container/engine_ids.h"
#include "runtime/container/engine_ns.h"
#include "runtime/container/engine_recorder.h"

#define ENGINE_BACKEND "engine"
#define NOTES_FILE "tightened.txt"

struct engine {
    const struct rr_ctx *ctx;
    const struct create_opts *o;
    const struct rr_config *cfg;
    const char *bundle;
    int bundle_fd;
    struct profile p;
    struct cgroup_plan cg;
    struct seccomp_progs sc;
    char state_path[PATH_MAX];
    int root_fd, dir_fd, lock_fd, console_fd, root_mfd, mountpoint, fifo;
    int *bind_fds;
    bool *bind_idmap; /* the kubelet's volume: idmapped (profile_kubelet_volume) */
    struct engine_checkout ck; /* io.revrun.checkout: the store and the lower */
    struct overlay_store root_store; /* the image's private upper (profile eng.root_upper) */
    struct engine_ns ns;     /* namespaces joined by path; the pod's (engine_ns.h) */
    struct profile_pod pod;  /* in a pod: what the profile is told of it */
    pid_t child;
    int child_pidfd;         /* when child is not ours (in a pod, a grandchild): its pidfd */
    int sync_fd;
    struct engine_ids ids; /* its host id block (review2 F5) */
    struct engine_recorder rec; /* the policy records execs: the recorder's pair */
};

/* The state directory, its record, the fifo and the device cgroup. */
int engine_make_state(struct engine *e, struct rr_error *err);
/* The state record, with the container's pid once there is one (0 before). */
int engine_record(struct engine *e, pid_t pid, struct rr_error *err);

#endif
