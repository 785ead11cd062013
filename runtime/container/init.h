/* The container's pid 1: sets the container up from inside its namespaces,
 * waits for `start`, then runs the agent as its only child, reaps every
 * zombie, forwards SIGTERM/SIGINT/SIGHUP (and the other catchable signals)
 * to the agent, and reports the agent's exit status to the monitor. When it
 * exits, the kernel kills everything left in the pid namespace: nothing the
 * agent started outlives it. */
#ifndef REVRUN_INIT_H
#define REVRUN_INIT_H

#include <stdbool.h>

#include "runtime/confine/profile/profile.h"
#include "runtime/confine/rootfs.h"
#include "runtime/confine/seccomp.h"

struct init_args {
    const struct profile *p;
    int sync_fd;                      /* to the monitor */
    struct rootfs_fds fds;
    int fifo_fd;                      /* O_PATH of the exec fifo */
    const char *state_path;           /* to reopen the layers in this mount namespace */
    const struct seccomp_progs *seccomp; /* compiled by the monitor; loaded just before exec */
    bool clear_groups;                /* root: drop the caller's supplementary groups */
    int console_fd;                   /* process.terminal: the caller's console socket; else -1 */
    int egress_sock;                  /* O_PATH of the broker's socket (set by pid 1); else -1 */
};

__attribute__((noreturn)) void init_main(struct init_args *a);

#endif
