/* Internal to egress/: waiting with a timeout that also watches a stop fd
 * and (for the broker) the agent's side hanging up, and whole writes that
 * never raise SIGPIPE. */
#ifndef REVRUN_EGRESS_IO_H
#define REVRUN_EGRESS_IO_H

#include <stdbool.h>
#include <stddef.h>

/* What ended a wait. */
enum io_wait {
    IO_READY = 0,
    IO_TIMEOUT = -1,
    IO_STOPPED = -2, /* stop_fd became readable */
    IO_HANGUP = -3,  /* watch_fd hung up (the agent went away) */
    IO_ERROR = -4,
};

/* Wait until fd has events (POLLIN/POLLOUT). stop_fd and watch_fd may be
 * -1. watch_fd is polled for hang-up only (POLLHUP/POLLERR), not for data,
 * so an agent's half-close does not count as going away. */
int io_wait(int fd, short events, int stop_fd, int watch_fd, unsigned timeout_ms);

/* send() all of buf (MSG_NOSIGNAL) to a non-blocking socket, waiting up to
 * timeout_ms each time it is full. 0, or an io_wait code / IO_ERROR. */
int io_send_all(int fd, const char *buf, size_t len, int stop_fd, unsigned timeout_ms);

/* A monotonic clock in milliseconds. */
unsigned long long io_now_ms(void);

#endif
