/* What `revrun review` says on the job's log (stderr) while it runs: one
 * line per phase (the bundle ready, the agent started and exited, vetting,
 * the verdict, the export, the bundle destroyed, the result), each a single
 * escaped line that starts with "revrun| ", beside the agent's own lines
 * ("agent| "). --quiet prints no phase; --json prints every line of the
 * job's stderr as one JSON object: {"phase": ...} for a phase, {"agent":
 * ...} for a line of the agent's, and revrun's own messages as the log's
 * JSON. Text the agent or the operator chose (the command, paths, an exec
 * error, the agent's lines) is escaped as everything on a CI log is
 * (common/escape.h), so no line can issue a CI log command. */
#ifndef REVRUN_REVIEW_LOG_H
#define REVRUN_REVIEW_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum review_voice { REVIEW_VOICE_TEXT, REVIEW_VOICE_QUIET, REVIEW_VOICE_JSON };

struct review_log {
    enum review_voice voice;
    int fd; /* the job's stderr */
};

/* How the agent ended, as review saw it. */
struct review_agent_end {
    int wait_status;
    bool timed_out;
    uint64_t timeout_s;
    int interrupted;        /* the signal that cancelled the job, or 0 */
    const char *exec_error; /* why it could not start, or "" */
    double seconds;         /* how long it ran */
};

void rlog_bundle(const struct review_log *l, const char *id);
void rlog_started(const struct review_log *l, char **cmd, int n_cmd, uint64_t timeout_s);
void rlog_exited(const struct review_log *l, const struct review_agent_end *e);
void rlog_vetting(const struct review_log *l);
/* A note on the state the agent left (phase "unfinished": it failed, said
 * above the verdict; "leftover": processes killed at its exit; "limit": a
 * cap it reached), text already escaped. */
void rlog_note(const struct review_log *l, const char *phase, const char *note);
/* A refused set's digest is not printed: nothing on the log reads like an
 * approvable set's line. */
void rlog_verdict(const struct review_log *l, bool refused, size_t changes, size_t reasons,
                  const char *digest);
void rlog_exported(const struct review_log *l, const char *dir);
void rlog_destroyed(const struct review_log *l);
void rlog_result(const struct review_log *l, int code, const char *out);

/* One line of the agent's output (raw bytes; escaped here). */
void rlog_agent_line(const struct review_log *l, const char *line, size_t len);

/* "the agent exited 7: this change set is what it left, unfinished", or
 * false when the agent finished (exit 0). Plain text, no hostile bytes
 * but the exec error, which is escaped. */
bool review_unfinished_note(const struct review_agent_end *e, char *buf, size_t len);

#endif
