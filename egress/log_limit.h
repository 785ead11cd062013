/* A bound on the broker's request log: the agent decides how many requests
 * it sends, so it must not decide how big the log grows (a flood of refused
 * requests wrote 10 MB/s into the state root). Lines pass at a steady rate
 * with a burst; what exceeds the rate is dropped and counted, and the next
 * line that passes is preceded by "N lines dropped"; the whole log stops at
 * max_bytes with one line saying so. Pure logic: the caller gives the time
 * and writes what it is told to. */
#ifndef REVRUN_EGRESS_LOG_LIMIT_H
#define REVRUN_EGRESS_LOG_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The container broker's defaults: 1 MiB in all, 200 lines at once, 20
 * lines a second after that (a model session makes a few a second). */
#define EG_LOG_MAX_BYTES (1u << 20)
#define EG_LOG_BURST 200u
#define EG_LOG_PER_SEC 20u
/* Room kept under max_bytes for the notes. */
#define EG_LOG_NOTE_RESERVE 256u

struct eg_log_limit {
    uint64_t max_bytes, written;
    uint64_t burst, per_sec;
    uint64_t tokens_ms; /* line credits, in thousandths */
    uint64_t last_ns;
    uint64_t dropped, dropped_total;
    bool started, full;
};

void eg_log_limit_init(struct eg_log_limit *l, uint64_t max_bytes, uint64_t burst,
                       uint64_t per_sec);

/* A line of len bytes at time now_ns (monotonic). true: write note (when
 * note[0] != '\0') and then the line. false: drop the line, but still write
 * note if it is not empty (the one "log full" line). Byte counts include
 * the notes. */
bool eg_log_limit_admit(struct eg_log_limit *l, uint64_t now_ns, size_t len, char *note,
                        size_t note_size);

/* The closing note when lines were dropped (empty otherwise). */
void eg_log_limit_summary(struct eg_log_limit *l, char *note, size_t note_size);

#endif
