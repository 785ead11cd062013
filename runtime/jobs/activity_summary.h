/* The activity record (runtime/container/activity.h) summed up: programs by
 * how often they ran, requests by method, path and status, and what the
 * caps left out; as lines for summary.txt (and `revrun activity --summary`)
 * and as the "activity" member of report.json. The record is read back as
 * hostile text all the same: each line parsed with limits, a text shown
 * only in the escaped form the monitor wrote (escaped again otherwise). */
#ifndef REVRUN_ACTIVITY_SUMMARY_H
#define REVRUN_ACTIVITY_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

/* Distinct programs or requests counted apart; the rest are summed. */
#define ACT_SUMMARY_KEYS 4096u
/* Shown in summary.txt; report.json has up to ACT_SUMMARY_JSON. */
#define ACT_SUMMARY_TEXT 20u
#define ACT_SUMMARY_JSON 200u

struct act_count {
    char *key; /* escaped text */
    uint64_t n;
};

struct act_table {
    struct act_count *v;
    size_t n;
    uint64_t others; /* past ACT_SUMMARY_KEYS distinct keys */
};

struct act_summary {
    uint64_t execs, not_found, requests, nested;
    uint64_t more_execs, more_requests;
    bool capped, ended; /* the last line was there */
    uint64_t max_records, max_bytes;
    struct act_table programs, paths;
    uint64_t bad_lines; /* not records revrun writes: skipped */
};

/* Sum up the record text[0..len). */
int act_summary_load(const char *text, size_t len, struct act_summary *s, struct rr_error *err);
void act_summary_free(struct act_summary *s);

void act_summary_text(FILE *f, const struct act_summary *s);
struct json_writer;
void act_summary_json(struct json_writer *w, const struct act_summary *s);

#endif
