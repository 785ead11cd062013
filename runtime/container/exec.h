/* revrun exec: one more process inside a container that exists.
 *
 * revrun (on the host) pins the container's init with a pidfd and forks a
 * helper; the helper joins the container's cgroup, takes the rlimits, drops
 * its dumpability and joins every namespace of the init in one setns(pidfd)
 * call, then clones the process with CLONE_PARENT, so the process is
 * revrun's own child (and, once revrun exits with --detach, the caller's
 * subreaper's: the shim or conmon reaps it by the pid file). The process
 * takes the container's identity, Landlock ruleset, no capability, no_new_privs,
 * only fds 0-2 (and --preserve-fds), the seccomp floor and filter last, and
 * execs. What it may reach is profile_exec()'s answer, never wider than the
 * container's. */
#ifndef REVRUN_EXEC_H
#define REVRUN_EXEC_H

#include <stdbool.h>

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/container/ctx.h"

struct exec_opts {
    const char *id;
    const char *process_file; /* --process FILE; NULL: the inline form */
    char **argv;              /* inline form: the command */
    int argc;
    const char *cwd;          /* inline --cwd */
    const struct rr_strv *env; /* inline --env NAME=VALUE */
    bool tty;                 /* inline --tty */
    bool detach;
    const char *pid_file;
    const char *console_socket;
    int preserve_fds;
};

/* Without detach, *status is the process's exit status as a shell reports
 * it (128+N for signal N). Errors before the process runs: -1. */
int container_exec(const struct rr_ctx *ctx, const struct exec_opts *o, int *status,
                   struct rr_error *err);

#endif
