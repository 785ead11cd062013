/* The processes of one container, each pinned by a pidfd: what ps, kill
 * --all and update act on. Members are those of its cgroup; a container
 * without one (no limit asked) is judged by its pid namespace instead,
 * unless that is revrun's own (then there is no safe way to tell, and the
 * verb refuses); rootless, where the init's namespace is unreadable (pid 1
 * is not dumpable), by the init's descendants at its depth and the
 * namespace of one that can be read. A pid read from a list may die and be reused by a host
 * process before it is pinned, so membership is checked again after the
 * pidfd is open: the pidfd is then that member's. */
#ifndef REVRUN_MEMBERS_H
#define REVRUN_MEMBERS_H

#include <stddef.h>
#include <sys/types.h>

#include "bundle/state.h"
#include "common/error.h"

#define MEMBERS_MAX 65536

struct members {
    pid_t *pids;
    int *pidfds;
    size_t n;
};

int members_collect(const struct rr_state *s, struct members *m, struct rr_error *err);
void members_free(struct members *m);

/* Signal every member. ESRCH from one that ended meanwhile is no error. */
int members_signal(const struct members *m, int sig, struct rr_error *err);

#endif
