/* process.terminal with OCI console-socket semantics: the caller of `create
 * --console-socket PATH` listens on a Unix socket; the container's pid 1
 * makes a pty in the container's own devpts instance and sends the master
 * there (SCM_RIGHTS); the agent gets the slave as its controlling terminal
 * and its stdio. No terminal of the host ever reaches the agent. */
#ifndef REVRUN_CONSOLE_H
#define REVRUN_CONSOLE_H

#include <stdbool.h>

#include "common/error.h"

/* The CLI: connect to the caller's console socket (a close-on-exec fd). */
int console_connect(const char *path, struct rr_error *err);

/* pid 1, inside the new root: a fresh pty; the master goes out through
 * console_fd (which is closed), the slave is returned (close-on-exec). */
int console_make_pty(int console_fd, struct rr_error *err);

/* The agent's process, in its new session: the slave becomes the
 * controlling terminal and fds 0, 1 and 2. Returns -1 with errno. */
int console_attach(int slave_fd);

/* The monitor, before the container's pid 1 exists (it inherits fds 0-2):
 * a terminal on fd 0 is replaced by /dev/null, one on fd 1 or 2 by a
 * write-only open of the same terminal (a shell's tty fd is read-write, so
 * the agent could read the keyboard through stdout). *changed says whether
 * stdin was a terminal (for the one log line). */
int console_stdio_no_input(bool *changed, struct rr_error *err);

#endif
