/* The fuse-overlayfs daemon of one container, a child of its monitor.
 *
 * It lives outside the container's pid namespace (the agent cannot signal
 * or ptrace it) and is sandboxed on its own: new mount, pid, network, ipc
 * and uts namespaces, a fresh /proc, the container user's identity with no
 * capability and no_new_privs, and the container's cgroup (its memory is
 * the agent's doing). It dies with the monitor (PR_SET_PDEATHSIG), is killed
 * by it on destroy, and exits by itself once the container's mount namespace,
 * the only place its mount is attached, is gone. */
#ifndef REVRUN_FUSE_DAEMON_H
#define REVRUN_FUSE_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "overlay/overlay.h"
#include "runtime/confine/cgroup.h"

struct seccomp_progs;

struct fuse_spec {
    const struct overlay_fuse_bin *bin;
    int lower_mfd; /* detached lower: attached in the daemon's namespace (do not reuse) */
    int store_fd;  /* the directory holding upper/ and work/ (caller's mount namespace) */
    uid_t uid;     /* the container user, in the caller's user namespace: the */
    gid_t gid;     /* daemon's identity and the only one the mount serves */
    bool squash;   /* show every file as uid/gid's (a lower that could not be idmapped) */
    const struct cgroup_plan *cgroup; /* NULL: none */
    const struct seccomp_progs *seccomp; /* the floor (prog[0]) is loaded; NULL: none */
    /* engine mode: no revrun process outlives create, so the daemon is not
     * tied to its parent; it ends with the container's mount namespace (the
     * only place its mount is attached) or with the container's cgroup */
    bool outlive_parent;
};

struct fuse_daemon {
    pid_t pid; /* -1: none (or reaped) */
    int pidfd;
    int log_fd;   /* its stderr: a bounded memfd */
    int view_mfd; /* the detached FUSE mount it serves */
};

void fuse_daemon_init(struct fuse_daemon *d);

/* Mount, spawn, and wait until the mount answers. */
int fuse_daemon_start(const struct fuse_spec *s, struct fuse_daemon *d, struct rr_error *err);

/* Kill and reap it (when still there) and close everything. */
void fuse_daemon_stop(struct fuse_daemon *d);

/* Engine mode, once the container holds the view: close our handles and
 * leave the daemon running (it becomes the engine's subreaper's child). */
void fuse_daemon_release(struct fuse_daemon *d);

/* pid was reaped with status: when it is the daemon, true, and why says how
 * it ended. */
bool fuse_daemon_reaped(struct fuse_daemon *d, pid_t pid, int status, char *why, size_t len);

#endif
