/* Engine mode's activity record (the host policy's "activity": "record"):
 * an engine's container has no monitor (create exits, the shim or conmon
 * reaps the container's process), so create leaves a recorder behind, a
 * process of its own outside the container, holding what the review
 * monitor holds for the record:
 *
 *   create  socketpair, one end to the container's init, one kept;
 *           at the end, forks the recorder, which opens STATE/activity.jsonl
 *           and finds the container's pid 1; create returns once it has
 *           (a recorder that cannot record fails the create);
 *   start   the container's init loads the floor with a listener and hands
 *           the listener to the recorder over its end, then execs: from the
 *           first exec on, each is answered by the recorder
 *           (activity_exec.h: read, recorded, let run);
 *   end     every process under the filter gone, the listener hangs up: the
 *           exits still pending, the record's last line, and the recorder
 *           exits. A container that is deleted before start closes its end:
 *           the record is closed with nothing in it.
 *
 * The recorder is in its own session (a terminal's ^C to the engine's CLI
 * does not reach it) with stdio on /dev/null (an engine that reads create's
 * output to its end is not held open by it). If it is killed, the
 * container's next exec fails (ENOSYS: nobody answers), never runs
 * unrecorded. `revrun activity ID` reads the record, as for review
 * containers, until `delete` removes the state directory; with the policy's
 * activityRoot, the finished record is kept there too (activity_keep.h). */
#ifndef REVRUN_ENGINE_RECORDER_H
#define REVRUN_ENGINE_RECORDER_H

#include <sys/types.h>

#include "common/error.h"

struct engine_recorder {
    int init_end; /* the container's init: sends the listener here; -1: no record */
    int rec_end;  /* the recorder's */
};

void engine_recorder_init(struct engine_recorder *r);

/* Before the container's init is made: the pair. */
int engine_recorder_prepare(struct engine_recorder *r, struct rr_error *err);

/* Once the container is created (dir_fd: its state directory, init_pid: its
 * pid 1 as this process sees it): fork the recorder and wait until it
 * records. keep_root: the policy's activityRoot, where the finished record
 * is kept as ID.jsonl (activity_keep.h), or "". Closes both ends here
 * either way. */
int engine_recorder_start(struct engine_recorder *r, int dir_fd, pid_t init_pid, const char *id,
                          const char *keep_root, struct rr_error *err);

void engine_recorder_close(struct engine_recorder *r);

#endif
