/* The lifecycle, as library calls; the cli_*.c files only parse options and
 * call these. */
#ifndef REVRUN_CONTAINER_H
#define REVRUN_CONTAINER_H

#include <stdbool.h>

#include "bundle/config.h"
#include "bundle/state.h"
#include "common/error.h"
#include "runtime/container/ctx.h"

enum container_status {
    STATUS_CREATING,
    STATUS_CREATED,
    STATUS_RUNNING,
    STATUS_STOPPED,
    STATUS_PAUSED, /* its cgroup is frozen (revrun pause) */
};

const char *container_status_name(enum container_status s);

struct create_opts {
    const char *id;
    const char *bundle;            /* bundle directory; NULL with cfg */
    const struct rr_config *cfg;   /* in place of a bundle: written into the state dir */
    const char *pid_file;          /* NULL: none */
    const char *console_socket;    /* process.terminal: where the pty master goes */
    int preserve_fds;              /* --preserve-fds: the caller's fds 3.. passed on (engine mode) */
    bool attached;                 /* run: keep a channel for the exit status */
    unsigned *limits_skipped;      /* out, or NULL: best-effort limits not enforced (CG_*) */
    char *git_note;                /* out, or NULL: a worktree checkout's git line (escaped) */
    size_t git_note_len;
};

/* On success with attached, *attach_fd receives the channel on which the
 * monitor sends SYNC_EXITED. */
int container_create(const struct rr_ctx *ctx, const struct create_opts *o, int *attach_fd,
                     struct rr_error *err);
int container_start(const struct rr_ctx *ctx, const char *id, struct rr_error *err);
/* A stopped container: ESRCH, "container not running" (runc's words). */
int container_kill(const struct rr_ctx *ctx, const char *id, int sig, struct rr_error *err);
/* kill --all: every process of the container (container_signal_all). */
int container_kill_all(const struct rr_ctx *ctx, const char *id, int sig, struct rr_error *err);
/* Idempotent: a missing container is success. */
int container_destroy(const struct rr_ctx *ctx, const char *id, bool force,
                      struct rr_error *err);

/* The OCI state document (caller frees). */
int container_state_json(const struct rr_ctx *ctx, const char *id, char **out,
                         struct rr_error *err);

/* Stop the monitor and pid 1 recorded in s (SIGTERM, then SIGKILL). */
int container_stop_processes(const struct rr_state *s, struct rr_error *err);
/* As root: give the container's host ids back (idalloc.h); before its state
 * directory is removed. */
int container_release_ids(const struct rr_ctx *ctx, const char *id, struct rr_error *err);

/* Status from the state directory (s may be NULL: not yet recorded). */
enum container_status container_status_of(int dirfd, const struct rr_state *s);

/* The container's directory, locked, and its state: what every verb acting
 * on one container starts from. */
struct opened {
    int root;
    int dir;
    int lock;
    bool have_state;
    struct rr_state state;
};

/* ENOENT: "container does not exist". need_state: refuse one whose create
 * has not recorded its processes yet. */
int open_container(const struct rr_ctx *ctx, const char *id, bool need_state, struct opened *o,
                   struct rr_error *err);
void opened_close(struct opened *o);

#include "common/proc.h"
struct proc_ref init_ref(const struct rr_state *s);

/* Open the state root for this context (created when create is set). */
int container_root(const struct rr_ctx *ctx, bool create, struct rr_error *err);

#endif
