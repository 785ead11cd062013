/* Process identity that survives pid reuse: a pid together with its start
 * time (field 22 of /proc/PID/stat). revrun never signals a bare pid. */
#ifndef REVRUN_PROC_H
#define REVRUN_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

struct proc_ref {
    pid_t pid;
    unsigned long long start_time;
};

/* Fill ref for pid (which must exist). */
int proc_ref_of(pid_t pid, struct proc_ref *ref, struct rr_error *err);

/* A pidfd for exactly this process, or -1 with errno ESRCH when it is gone
 * (or the pid now belongs to another process). Zombies count as gone. */
int proc_ref_pidfd(const struct proc_ref *ref);

bool proc_ref_alive(const struct proc_ref *ref);

/* Send sig through a pidfd; ESRCH when the process is gone. */
int proc_ref_signal(const struct proc_ref *ref, int sig, struct rr_error *err);

/* Wait until the process is gone (pidfd poll), at most timeout_ms (-1: no
 * limit). Returns 0 when gone, -1 with errno ETIMEDOUT otherwise. */
int proc_ref_wait_gone(const struct proc_ref *ref, int timeout_ms);

/* Block the signals that ask revrun to stop what it runs (TERM, INT, HUP;
 * and SIGCHLD when with_sigchld) and return a signalfd to read them from
 * (close-on-exec, non-blocking); -1 with errno. Children revrun forks keep
 * the mask: each one that runs foreign code resets its own. */
int proc_signalfd_stop(bool with_sigchld);

/* Just before a foreign program's exec: every standard signal back to its
 * default action and none blocked. An ignored signal stays ignored across
 * exec (the monitor ignores SIGPIPE; a caller may ignore others), and a
 * program expects the defaults: `yes | head -1` ends yes, silently. The
 * real-time signals glibc keeps for itself are left alone. */
void proc_signals_default(void);

/* A container's first process while it waits for start: with on, a signal
 * whose default ends a process (TERM, INT, HUP, QUIT, USR1, USR2, ALRM)
 * ends it, _exit(128 + N), as runc's created container ends; without, those
 * go back to SIG_DFL (a pending one stays pending). Needed because the
 * kernel drops any signal sent from outside to a pid namespace's pid 1
 * that has no handler for it, SIGKILL and SIGSTOP aside. */
int proc_end_on_signals(bool on);

/* The pid namespace this process's pids (pidfd_open, /proc/PID) are
 * numbered in, as the device and inode of /proc/self/ns/pid: -1 (errno
 * ESRCH) when /proc is another pid namespace's (its "self" is not this
 * process), where a pid read there could name another process. */
int proc_pidns_self(unsigned long long *dev, unsigned long long *ino);

int rr_pidfd_open(pid_t pid);
int rr_pidfd_send_signal(int pidfd, int sig);

#endif
