/* Messages between the processes of one container over SOCK_SEQPACKET
 * socketpairs: the CLI <-> the monitor, the monitor <-> the container's pid 1.
 * An error travels with the step that failed and its errno, so `create`
 * prints "mount /proc: Operation not permitted" rather than "it failed". */
#ifndef REVRUN_SYNC_H
#define REVRUN_SYNC_H

#include <signal.h>
#include <stdint.h>

#include "common/error.h"

enum sync_type {
    SYNC_GO = 1,     /* monitor -> init: maps written, cgroup joined: set up */
    SYNC_READY,      /* init -> monitor -> CLI: set up, waiting for start */
    SYNC_ERROR,      /* any -> up: text + errnum */
    SYNC_STARTED,    /* init -> monitor: the process was started (value: its pid inside) */
    SYNC_EXITED,     /* init -> monitor -> CLI: value: wait status; value2: SYNC_EXIT_* */
    SYNC_CREATED,    /* monitor -> CLI: value: init pid; value2: init start time */
    SYNC_ACK,        /* CLI -> monitor: state recorded, carry on */
    SYNC_WARNING,    /* monitor -> CLI: text to show, creation goes on */
    SYNC_NOTIFY_FD,  /* the agent's process -> monitor: its seccomp listener, as SCM_RIGHTS */
    SYNC_HOOKS,      /* engine init -> create: mounts made, before pivot_root: run prestart
                      * and createRuntime now (answered by SYNC_ACK) */
    SYNC_ENTERED,    /* engine init -> create: in the pod's user namespace, its own
                      * namespaces made there (engine_ns_child_pod) */
    SYNC_LEFTOVER,   /* init -> monitor -> attached CLI: value: processes the agent left
                      * that init killed at its exit; text: their names (leftover.h) */
};

#define SYNC_TEXT_MAX 2048

/* SYNC_EXITED's value2 from the monitor: how the run ended */
#define SYNC_EXIT_TIMED_OUT 1    /* the timeout killed it */
#define SYNC_EXIT_UPPER_FULL 2   /* the upper's bytes were used up at some look */
#define SYNC_EXIT_UPPER_INODES 4 /* the upper's inodes were */

struct sync_msg {
    uint32_t type;
    int32_t errnum;
    int64_t value;
    int64_t value2;
    char text[SYNC_TEXT_MAX];
};

int sync_send(int fd, uint32_t type, int64_t value, int64_t value2, const char *text);
int sync_send_error(int fd, const struct rr_error *err);

/* A message with one fd passed along (SCM_RIGHTS). */
int sync_send_fd(int fd, uint32_t type, int passed);

/* As sync_recv; *passed is the fd that came with it (close-on-exec), or -1. */
int sync_recv_fd(int fd, struct sync_msg *m, int *passed);

/* 1: a message; 0: the peer closed; -1: error (errno). */
int sync_recv(int fd, struct sync_msg *m);

/* Receive and expect `type`; an SYNC_ERROR becomes *err. */
int sync_expect(int fd, uint32_t type, struct sync_msg *m, struct rr_error *err);

/* The container's side of the exec fifo: opening it for writing blocks
 * until `revrun start` opens it for reading; the byte written tells start
 * that the container was really waiting. Closes fifo_fd. With held NULL the
 * writing end is closed at once; otherwise it is handed out (close-on-exec)
 * and start, which waits for the fifo's end of file, returns only once the
 * process has exec'd (or died): an engine's poststart hooks then run after
 * the user's program is executed, as the runtime spec orders. With block
 * not NULL, those signals are blocked once start has opened the fifo and
 * before the byte says so: none sent after start returns can come while
 * the caller still has no way to take it. */
int sync_wait_for_start(int fifo_fd, int *held, const sigset_t *block, struct rr_error *err);

#endif
