/* The activity record: every program the agent executed and every request
 * it made through the egress broker, written by the monitor (outside the
 * sandbox, where the agent cannot reach, forge or delay it) into
 * STATE/activity.jsonl, one JSON object a line; `review` hands it over as
 * OUT/activity.jsonl and `revrun activity ID` prints it.
 *
 *   {"type":"activity", ...the caps...}        first line
 *   {"type":"exec", "seq", "time", "pid", "ppid", "cwd", "path", "argv", ...}
 *   {"type":"exit", "seq" (the exec's), "time" (when the monitor saw it), "pid",
 *    "status" | "signal"}
 *   {"type":"request", "time", "method", "path", "status", "bytesUp", ...}
 *   {"type":"end", "records", "bytes", "more": {...}}  last line
 *
 * Every text the agent chose (path, cwd, argv, the request's method and
 * path) is escaped (common/escape.h) before it is JSON: no control byte,
 * bidi override, CI log command or invalid UTF-8 survives, and the file can
 * be printed to a CI log as it is. Bounded: ACT_MAX_RECORDS records and
 * ACT_MAX_BYTES bytes; past either, records are only counted ("more" in the
 * last line). One record is at most ACT_MAX_RECORD_BYTES, each argument at
 * most ACT_MAX_ARG_BYTES of the agent's bytes, ACT_MAX_ARGS of them; what
 * is cut is counted in the record. */
#ifndef REVRUN_ACTIVITY_H
#define REVRUN_ACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"

#define ACTIVITY_FILE "activity.jsonl"

#define ACT_MAX_RECORDS 20000u
#define ACT_MAX_BYTES (8u << 20)
#define ACT_MAX_ARGS 64u
#define ACT_MAX_ARG_BYTES 4096u
#define ACT_MAX_PATH_BYTES 4096u
#define ACT_MAX_RECORD_BYTES 16384u
/* Room kept under ACT_MAX_BYTES for the last line. */
#define ACT_END_RESERVE 1024u

struct act_text {
    const char *p;
    size_t n;
};

/* One exec, as the monitor read it when the call was made. */
struct act_exec {
    struct timespec when; /* CLOCK_REALTIME */
    int pid, ppid;        /* as seen in the container; 0: not known */
    unsigned nested;      /* pid namespaces below the container's (the agent's own sandbox) */
    int found;            /* 1: a file was at path; 0: none (a PATH search's miss); -1: unknown */
    struct act_text cwd;
    struct act_text path;
    const struct act_text *argv; /* the arguments kept (each up to ACT_MAX_ARG_BYTES) */
    size_t n_argv;
    uint64_t argc;      /* all of them */
    uint64_t args_cut;  /* arguments not kept */
    uint64_t bytes_cut; /* bytes of kept arguments (and the path) that were not */
};

/* One request through the broker (never a header value or a body). */
struct act_request {
    struct timespec when; /* when it came, CLOCK_REALTIME */
    struct act_text method;
    struct act_text path; /* without the query */
    int status;
    uint64_t bytes_up, bytes_down;
    uint64_t ms;
    bool credential; /* the credential was injected into it */
    const char *note; /* the broker's own words (why it refused), or NULL */
    uint64_t bytes_cut; /* of method and path, cut before they came here */
};

/* Records are written in batches of up to this much: when it fills, when
 * the monitor's loop has been idle for ACT_FLUSH_MS, and at the end. */
#define ACT_BUF_BYTES (64u << 10)
#define ACT_FLUSH_MS 100

struct activity {
    int fd; /* -1: no record */
    uint64_t seq, records, bytes;
    bool full;
    char *buf; /* ACT_BUF_BYTES, not yet written */
    size_t used;
    struct {
        uint64_t execs, exits, requests;
    } more;
    /* Past the caps an exec is refused (EPERM) rather than let run
     * uncounted in the record: an engine container's recorder, whose
     * container may live long and fill the record on purpose. Counted in
     * the last line's "refused". */
    bool refuse_when_full;
    uint64_t refused;
};

/* A record that fits the caps, as one line (with its "\n"); caller frees.
 * Pure: the unit tests call these. */
int act_format_exec(const struct act_exec *e, uint64_t seq, char **out, size_t *len);
int act_format_exit(uint64_t seq, int pid, int wait_status, const struct timespec *when,
                    char **out, size_t *len);
int act_format_request(const struct act_request *r, char **out, size_t *len);

/* Create dirfd/ACTIVITY_FILE (0600, replaced if present) and write the
 * first line. */
int activity_open(struct activity *a, int dirfd, struct rr_error *err);

/* Write one record, or count it when the caps are reached. The exec's
 * sequence number, or 0 when it was only counted. */
uint64_t activity_exec(struct activity *a, const struct act_exec *e);
void activity_exit(struct activity *a, uint64_t seq, int pid, int wait_status);
void activity_request(struct activity *a, const struct act_request *r);
/* Records the broker could not hand over (counted as "more" requests). */
void activity_lost_requests(struct activity *a, uint64_t n);
/* Exits that cannot be watched (every slot in use): counted. */
void activity_lost_exits(struct activity *a, uint64_t n);

/* Write what is buffered; whether anything is. */
void activity_flush(struct activity *a);
static inline bool activity_pending(const struct activity *a)
{
    return a->used > 0;
}

/* Past the caps: the next exec is only counted (the caller need not read it). */
static inline bool activity_full(const struct activity *a)
{
    return a->full;
}

/* The last line (the counts) and close. Idempotent. */
void activity_close(struct activity *a);

/* The record of container id, as the monitor wrote it (activity_read.c);
 * caller frees *text. */
struct rr_ctx;
int container_read_activity(const struct rr_ctx *ctx, const char *id, char **text, size_t *len,
                            struct rr_error *err);

#endif
