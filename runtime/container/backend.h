/* Which overlay implementation gives the container its checkout
 * (revrun.overlay): "native" (kernel overlayfs, mounted by the container's
 * pid 1 in its user namespace), "fuse" (fuse-overlayfs, a daemon of the
 * monitor), or "auto": native when a probe shows the kernel mounts it over
 * this very checkout, fuse-overlayfs otherwise, with the kernel's reason
 * shown. The decision is made by the monitor before the container's pid 1
 * exists, so a refusal cannot leave a half-built container; an explicit
 * choice that cannot mount fails the create. */
#ifndef REVRUN_BACKEND_H
#define REVRUN_BACKEND_H

#include <stdbool.h>
#include <sys/types.h>

#include "bundle/config.h"
#include "common/error.h"
#include "overlay/overlay.h"
#include "runtime/confine/cgroup.h"
#include "runtime/container/fuse_daemon.h"
#include "runtime/confine/profile/profile.h"

/* Operators may name the fuse-overlayfs binary (an absolute path, checked
 * as any other); otherwise it is looked for in fixed system directories. */
#define BACKEND_FUSE_ENV "REVRUN_FUSE_OVERLAYFS"

struct backend {
    enum rr_backend kind; /* after backend_choose: NATIVE or FUSE */
    struct overlay_fuse_bin bin;
    struct rr_error bin_err; /* why there is no usable binary (bin.fd < 0) */
    struct fuse_daemon fuse;
};

/* What the monitor has when it chooses. */
struct backend_env {
    const struct profile *p;
    int state_dir; /* the container's state directory, this mount namespace's */
    int warn_fd;   /* where SYNC_WARNING messages go (the CLI) */
    const struct cgroup_plan *cgroup;
    const struct seccomp_progs *seccomp; /* [0], the helpers' floor, confines the fuse daemon */
};

void backend_init(struct backend *b);

/* Find and check fuse-overlayfs while still in the host's user namespace
 * (owners read right there). A missing binary fails only "fuse". */
int backend_find(struct backend *b, const struct profile *p, struct rr_error *err);

int backend_choose(struct backend *b, const struct backend_env *e, struct rr_error *err);

/* The FUSE view for pid 1 to attach, or -1 (native: pid 1 mounts). */
int backend_view(const struct backend *b);
/* pid 1 holds its copy: the monitor lets go of its own. */
void backend_release_view(struct backend *b);

/* "native" or "fuse", as state.json records it. */
const char *backend_name(const struct backend *b);

/* Every reaped w goes here: true when it was the fuse-overlayfs daemon and
 * the container (pid 1, init_pid; -1 once it has ended) still runs without
 * its checkout; why says what happened. */
bool backend_lost(struct backend *b, pid_t w, int status, pid_t init_pid, char *why, size_t len);

void backend_stop(struct backend *b);

/* CLI side, once created: say which backend runs and on whose choice. */
void backend_log_choice(enum rr_backend asked, const char *chosen);

/* Run fn(arg, err) in a forked child, whose namespaces and mounts go away
 * with it; its error comes back in *err. */
int backend_in_child(int (*fn)(void *arg, struct rr_error *err), void *arg, struct rr_error *err);

#endif
