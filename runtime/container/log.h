/* revrun's own messages: to stderr for a person, and to --log FILE in text or
 * JSON (one object per line, as runc and crun write them). Every message is
 * escaped on the way out, since file names, paths and a child's output that
 * end up in messages are attacker-chosen. */
#ifndef REVRUN_LOG_H
#define REVRUN_LOG_H

#include <stdbool.h>

#include "common/error.h"

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };
enum log_format { LOG_FORMAT_TEXT, LOG_FORMAT_JSON };

/* Start logging to path (appended, created 0600). */
int log_open(const char *path, enum log_format fmt, struct rr_error *err);
void log_close(void);
/* The --log file's fd, or -1 (so that no fd of revrun's is handed on). */
int log_fileno(void);

/* Messages at or above this level also go to stderr (default: warnings). */
void log_set_stderr_level(enum log_level level);

/* Where the stderr half goes; -1 for STDERR_FILENO. `review` points it at its
 * own stderr while the container's create has fds 1 and 2 on the agent's
 * pipe, so that revrun's words never travel in the agent's stream. */
void log_set_stderr_fd(int fd);

/* The stderr half as one JSON object per line ({"level","msg"}), for
 * `review --json`, whose whole stderr is JSON lines. */
void log_set_stderr_json(bool on);

/* While set, every warning is also appended (escaped) to *sink: `review`
 * keeps them for result.json. NULL stops it. */
struct rr_strv;
void log_collect_warnings(struct rr_strv *sink);

void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Report an error object: "revrun: <message>: <errno text>". */
void log_error(const struct rr_error *err);

#endif
