/* The monitor: one small process per container, for the container's whole
 * life (as conmon is for crun). It
 *   - holds the mount namespace where the upper's store lives, so the upper
 *     exists exactly as long as the bundle (and vanishes if the monitor is
 *     killed: nothing is left on the host);
 *   - creates the container's pid 1 and writes its id maps;
 *   - records the exit status and end time (exit.json), enforces the
 *     wall-clock timeout, and kills the container when told to (SIGTERM from
 *     destroy) or when an attached `run` goes away.
 * The container's pid 1 dies with the monitor (PR_SET_PDEATHSIG). */
#ifndef REVRUN_MONITOR_H
#define REVRUN_MONITOR_H

#include <stdbool.h>

#include "runtime/confine/cgroup.h"
#include "runtime/confine/profile/profile.h"

struct monitor_args {
    const struct profile *p;
    const char *id;
    const char *state_path; /* absolute path of the container's state directory */
    int cli_fd;      /* SEQPACKET to the CLI that created us */
    int state_dir;   /* the container's state directory */
    int rootfs_dir;  /* O_PATH of root.path */
    int fifo_fd;     /* O_PATH of the exec fifo */
    bool attached;   /* `run`: the CLI going away kills the container */
    const struct cgroup_plan *cgroup; /* made by create; pid 1 joins it */
    int console_fd;  /* process.terminal: the caller's console socket, for pid 1; else -1 */
};

__attribute__((noreturn)) void monitor_main(struct monitor_args *a);

#endif
