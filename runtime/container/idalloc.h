/* Host ids of their own for containers (the policy's hostIds range), so
 * that as root no two containers are the same user to the kernel: per-user
 * limits (inotify instances, user watches, RLIMIT_NPROC, keyrings) and
 * signals or ptrace between containers stay apart.
 *
 * One file per taken id in IDALLOC_DIR (root's, 0700, on /run: gone at
 * reboot with every container, never under a state root or a tree the
 * agent reaches): the file's name is the id, its text names the container
 * (its state root and ID) and the command that took it. It is taken with
 * link(2) of a complete temporary file, exclusive and atomic: two creates
 * never get the same id and no reader sees half a record. Whoever took it
 * holds a shared flock on it, handed to the container's monitor for as long
 * as the monitor lives. An engine container has no monitor: its create
 * records its init (pid, start time and pid namespace) in the file before
 * it lets go of the flock, and the block is held while that process
 * lives, whatever mount namespace its state root is visible in. destroy
 * releases it before the state directory goes; sweep (and a create that
 * finds the range full) reclaims an id whose file no process holds, whose
 * recorded init (if any) is gone, and whose container's state directory is
 * gone (seen from the reclaimer; an init recorded in another pid namespace
 * keeps it: only a sweep there can tell). A pod's later containers share
 * its first container's block: each holds it by a claim beside the record
 * (idalloc_claim.c), and the block goes with the last holder. */
#ifndef REVRUN_IDALLOC_H
#define REVRUN_IDALLOC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bundle/policy.h"
#include "common/error.h"

#define IDALLOC_DIR "/run/revrun-ids"

/* Take a free id of r (exact: exactly *id, refused while another container
 * holds it) for the container root/cid (root: the state root's real
 * path). *id: the id taken; *held: the fd whose flock holds it (close it
 * only when the container is gone: the monitor keeps it). */
int idalloc_take(const struct rr_id_range *r, bool exact, uint32_t *id, const char *root,
                 const char *cid, int *held, struct rr_error *err);

/* Take a free block of size ids of r (engine containers: one block each,
 * its first id the record's name); the rest as idalloc_take. */
int idalloc_take_block(const struct rr_id_range *r, uint32_t size, uint32_t *first,
                       const char *root, const char *cid, int *held, struct rr_error *err);

/* Record init (a process of this pid namespace) as the holder of the
 * block this process took and still holds (held: its fd): kept while init
 * lives. */
int idalloc_hold_init(int held, pid_t init, struct rr_error *err);

/* A later container of a pod joins the pod's block (first: the record's
 * id; userns_fd: the pod's user namespace): refused unless the record is
 * there and one of its holders (the first container's init or a claim's)
 * lives in that user namespace; then the claim root/cid is made, in the
 * same locked step. *held: the claim's fd (shared flock), for
 * idalloc_hold_init. The block stays until its last holder is released
 * or, after a crash, until no holder's process or state is left. */
int idalloc_join(uint32_t first, int userns_fd, const char *root, const char *cid, int *held,
                 struct rr_error *err);

/* Give back the claim of a create that failed (*held, closed). */
void idalloc_leave(uint32_t first, const char *cid, int *held);

/* Give back the id this process took and still holds (*held, closed): a
 * create that fails before its state directory is its own. */
void idalloc_drop(uint32_t id, int *held);

/* Release every id held for root/cid (none: done). */
int idalloc_release(const char *root, const char *cid, struct rr_error *err);

/* Reclaim every id whose holder is gone; note() says which, one line each. */
int idalloc_reclaim(void (*note)(void *arg, const char *line), void *arg,
                    struct rr_error *err);

/* How many ids of r are taken now (for check); -1 on error. */
long idalloc_in_use(const struct rr_id_range *r, struct rr_error *err);

#endif
