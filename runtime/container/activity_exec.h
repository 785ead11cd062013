/* The monitor's side of the exec record: each execve/execveat of the agent
 * (and of every process under it, its own nested sandbox included: the
 * floor's filter is inherited and stacked filters cannot outvote it) stops
 * in the kernel until the monitor answers its seccomp user notification.
 * The monitor reads what it needs while the call waits (path, argv, cwd,
 * the ids as seen in the container), checks that the notification is still
 * that process's, lets the call go on (CONTINUE: the kernel runs the exec as
 * if no filter had asked) and then writes the record. Past the record's
 * caps it only answers and counts. What it reads is a record, never a
 * decision: another thread of the caller may change the memory after it
 * was read (docs/activity.md says what the record can and cannot see).
 *
 * Exit statuses: a pidfd of each recorded process, looked at every 50 ms
 * while execs come, at its exit otherwise; when it ends, its status comes
 * from the kernel (PIDFD_INFO_EXIT, Linux 6.15+; without it the record has
 * no exits). */
#ifndef REVRUN_ACTIVITY_EXEC_H
#define REVRUN_ACTIVITY_EXEC_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/container/activity.h"

/* Processes whose exit is watched at once; past this, a record has no exit. */
#define ACT_WATCH_MAX 1024u

struct act_argv;
struct act_watch;
struct exec_texts;

struct act_call {
    uint32_t arch;
    int nr;
    bool at;           /* execveat */
    unsigned ptr_size; /* 8, or 4 for a 32-bit ABI */
};

struct act_execs {
    struct activity *rec;
    pid_t init_pid;
    unsigned level; /* entries of the container's pid 1 in NStgid */
    int init_inside; /* its pid in the container (1) */
    int proc_fd;    /* /proc */
    /* flat: no process of the container can make a pid namespace or
     * change its root (the review profile without nested sandboxes), so
     * the pid inside is one ioctl on the container's pid namespace
     * (pidns_fd, -1 when the kernel has no NS_GET_TGID_IN_PIDNS) and every
     * process's root is the first exec's (root_fd, -1 until then) */
    bool flat;
    int pidns_fd;
    int root_fd;
    struct act_call calls[6];
    size_t n_calls;
    struct act_argv *args; /* reused for each exec */
    struct exec_texts *texts;
    int epfd;              /* the watched pidfds; -1: exits are not known */
    struct act_watch *watch;
    size_t n_watch;
    unsigned zombies; /* ended, their status not yet reaped */
    int64_t next_look_ms; /* CLOCK_MONOTONIC: when the watched are looked at */
    int64_t last_exec_ms; /* the last exec watched */
};

int act_execs_init(struct act_execs *x, struct activity *rec, pid_t init_pid, bool flat,
                   struct rr_error *err);
void act_execs_free(struct act_execs *x);

/* The call the notification is for, or NULL when it is no exec. */
const struct act_call *act_execs_call(const struct act_execs *x, const struct seccomp_data *d);

/* Record the exec (unless past the caps) and let it go on. */
void act_execs_handle(struct act_execs *x, int notify_fd, const struct seccomp_notif *req,
                      const struct act_call *call);

/* For the monitor's poll: the fd readable when a watched process ended
 * (-1: not to be polled now), and how long until the watched processes
 * are looked at again (-1: no need). act_execs_tick: called on every
 * round (exits_ready: that fd was readable), looks when that time has
 * come. act_execs_on_exits: looks now. */
int act_execs_poll_fd(const struct act_execs *x);
int act_execs_timeout_ms(const struct act_execs *x);
void act_execs_tick(struct act_execs *x, bool exits_ready);
void act_execs_on_exits(struct act_execs *x);

/* Every process of the container is gone: the last exits, then nothing is
 * watched any more. */
void act_execs_finish(struct act_execs *x);

/* activity_watch.c: pidfds of recorded processes */
int act_watch_init(struct act_execs *x, struct rr_error *err);
void act_watch_free(struct act_execs *x);
void act_watch_add(struct act_execs *x, int pidfd, pid_t host_pid, int pid, uint64_t seq);
/* The parent of a pidfd's process, as seen from here (PIDFD_GET_INFO). */
int act_pidfd_ppid(int pidfd, pid_t *ppid);
/* The pid in the container of a watched process, or 0. */
int act_watch_inside_pid(const struct act_execs *x, pid_t host_pid);

#endif
