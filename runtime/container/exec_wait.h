#ifndef REVRUN_EXEC_WAIT_H
#define REVRUN_EXEC_WAIT_H

/* revrun exec's side once the helper is forked: its word (the process's
 * pid), the process's exec, then its end, passing signals on. */

#include <signal.h>
#include <sys/types.h>

#include "common/error.h"

/* The helper's word: the process's pid in *child, or why there is none.
 * report: the report socket's two ends; the write end is closed here. */
int exec_await_pid(int report[2], pid_t helper, pid_t *child, struct rr_error *err);

/* Until the process has made its exec (every copy of the report socket
 * closed), or said why not. A signal in set other than SIGCHLD, SIGWINCH
 * and SIGCONT arriving first ends the process (it is not the program yet,
 * and may be held stopped by the container) and fails. */
int exec_await_exec(int report, pid_t child, const sigset_t *set, struct rr_error *err);

/* SIGKILL to the process, then wait for it: it does not stay. */
void exec_kill_and_reap(pid_t child);

/* Without --detach: wait for the process, passing on what the caller is
 * sent, as runc does; *status is its exit code (128+N for signal N). */
int exec_wait_forwarding(pid_t child, const sigset_t *set, int *status, struct rr_error *err);

#endif
