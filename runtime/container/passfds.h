/* --preserve-fds N (create and exec, runc's flag): the caller's fds
 * 3 .. 3+N-1 reach the container's process at the same numbers. */
#ifndef REVRUN_PASSFDS_H
#define REVRUN_PASSFDS_H

#include "common/error.h"

#define PASSFDS_MAX 1024

/* Checked before revrun opens anything: each fd is open, is not revrun's own
 * (a gap in the caller's fds would otherwise be filled by one of revrun's,
 * the --log file, and handed on), and passes profile_judge_passed_fd. */
int passfds_check(int n, struct rr_error *err);

/* In the process, just before its exec: fds from 3+n on close at the exec,
 * 3 .. 3+n-1 stay open across it. -1 with errno. */
int passfds_seal(int n);

#endif
