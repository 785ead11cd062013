/* What the agent left running when it exited: pid 1 stops every other
 * process of the container, names them, then kills them, so that the job
 * can say "2 processes the agent left behind were killed: sleep, sh"
 * instead of letting them vanish with the pid namespace unseen. */
#ifndef REVRUN_LEFTOVER_H
#define REVRUN_LEFTOVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LEFTOVER_NAMES_MAX 16 /* names sent; the count goes on */

/* Called by pid 1 once the agent has been reaped. Processes in ours (revrun's
 * own helpers: relay, resolver, warmers) are killed but neither counted nor
 * named. names gets the others' comm, '\n'-separated (a '\n' inside a name
 * becomes '?'); it is the agent's text: escape it before showing it.
 * Returns how many were killed. */
uint64_t leftover_kill(const pid_t *ours, size_t n_ours, char *names, size_t len);

#endif
