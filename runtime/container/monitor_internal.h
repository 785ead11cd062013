/* What monitor.c (setting the container up) and monitor_events.c (its
 * life after create) share; included by those only. */
#ifndef REVRUN_MONITOR_INTERNAL_H
#define REVRUN_MONITOR_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "overlay/overlay.h"
#include "runtime/confine/seccomp.h"
#include "runtime/container/backend.h"
#include "runtime/container/egress_wire.h"
#include "runtime/container/notify.h"
#include "runtime/container/monitor.h"
#include "runtime/container/sync.h"

struct monitor {
    struct monitor_args *a;
    struct broker_wire broker; /* the egress broker, if any */
    struct seccomp_progs seccomp;
    struct seccomp_progs helper_seccomp; /* the broker's and the fuse daemon's floor */
    struct overlay_store store;
    int lower_mfd;
    struct overlay_store git_store; /* a worktree's main git directory: its upper pair */
    int git_lower_mfd;
    struct backend backend; /* native overlay or the fuse-overlayfs daemon */
    pid_t init_pid;
    int init_fd;  /* SEQPACKET to init */
    int sig_fd;
    int timer_fd;
    int out_mfd; /* revrun.out: the /out tmpfs, and the host directory it goes to */
    int out_dir;
    /* what the exit record will say */
    bool exited;
    bool have_agent_status;
    int agent_status;
    bool timed_out;
    int upper_look_fd;          /* the upper, kept to look at its use once the store is let go */
    unsigned upper_hit;         /* SYNC_EXIT_UPPER_*: seen at a look (monitor_events.c) */
    int64_t next_upper_look_ms; /* CLOCK_MONOTONIC */
    char exec_error[SYNC_TEXT_MAX];
    /* the agent's seccomp listener: namespace attempts, the exec record */
    struct notify notify;
};

/* SIGKILL to pid 1, unless it has exited already. */
void monitor_kill_init(struct monitor *m);
/* Until pid 1 has exited and its exit is on record. */
void monitor_event_loop(struct monitor *m);

#endif
