/* `revrun exec` into an engine container whose execs are recorded (the
 * policy's "activity": "record"): the process an engine starts through
 * exec (kubectl exec, an exec probe, a HEALTHCHECK) runs in the container
 * and is as much the container's as its own processes; a hostile pid 1 can
 * swap the programs such a process runs. So it is recorded too, by the
 * same recorder: the recorder listens on STATE/recorder.sock (root's, in
 * the root-only state directory); `revrun exec` connects before it joins
 * the container, and its process loads the floor with a listener and hands
 * the listener over just before its exec. No recorder to connect to (it
 * was killed, or the container no longer runs) fails the exec; a
 * container made without the record has no socket and its execs run as
 * before. */
#ifndef REVRUN_RECORDER_EXECS_H
#define REVRUN_RECORDER_EXECS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define RECORDER_SOCK "recorder.sock"
/* exec'd processes recorded at once; one more is refused (its exec fails) */
#define RECORDER_EXECS_MAX 64

struct notify;

struct recorder_execs {
    int srv;                      /* the listening socket */
    int spare;                    /* an fd kept back: closed to accept one connection
                                   * when the others are used up (EMFILE), and that
                                   * connection refused at once */
    bool taken;                   /* an exec'd process's listener was ever taken */
    int conn[RECORDER_EXECS_MAX]; /* connected, their listener not yet sent */
    int lis[RECORDER_EXECS_MAX];  /* exec'd processes' listeners */
};

/* The recorder's side: listen on dir_fd/RECORDER_SOCK. */
int recorder_execs_listen(struct recorder_execs *x, int dir_fd, struct rr_error *err);
/* What to poll (at most 1 + 2 * RECORDER_EXECS_MAX), then what came. */
size_t recorder_execs_pollfds(const struct recorder_execs *x, struct pollfd *out);
void recorder_execs_events(struct recorder_execs *x, const struct pollfd *pfd, size_t n,
                           struct notify *nt);
void recorder_execs_close(struct recorder_execs *x);

/* A process's last step before its exec (the container's init, an exec'd
 * process): load the filters, floor first; with record_fd >= 0 the
 * floor's listener goes to the recorder over it before the exec that
 * waits for its answer, and neither is kept here. what names the step in
 * an error. A recorder that is gone fails here, never an exec that would
 * go unrecorded. */
struct seccomp_progs;
int recorder_load_seccomp(const struct seccomp_progs *s, int record_fd, const char *what,
                          struct rr_error *err);

/* `revrun exec`'s side: *fd connected to the recorder of the container
 * whose state directory dir_fd is, or -1 when it records nothing. */
int recorder_connect(int dir_fd, int *fd, struct rr_error *err);

#endif
