/* What state the agent left, said where the operator reads the verdict:
 * in summary.txt above it, in result.json, and on the job's log. An agent
 * that failed or timed out left an unfinished change set; processes it
 * left running were killed at its exit (counted and named); an upper that
 * reached its size cap means some of its writes failed. Also the files
 * review writes beside the summary: OUT/changeset.patch. */
#ifndef REVRUN_REVIEW_NOTES_H
#define REVRUN_REVIEW_NOTES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/container/sync.h"
#include "writeback/scan/scan.h"

#define REVIEW_PATCH_FILE "changeset.patch"

struct review_notes {
    char unfinished[1280];              /* "", or review_unfinished_note's */
    uint64_t leftover;                  /* processes pid 1 killed at the agent's exit */
    char leftover_names[SYNC_TEXT_MAX]; /* their comm, '\n'-separated: the agent's text */
    bool upper_full, inodes_full;       /* the upper's store reached its cap */
    uint64_t upper_size;                /* the cap, bytes */
};

/* Is the upper's store (a tmpfs of the cap's size) full? upper_fd may be
 * O_PATH. */
void review_notes_upper(struct review_notes *n, int upper_fd, uint64_t cap);

/* "the agent left 2 processes running; ...: sleep, sh" (escaped), or "". */
void review_notes_leftover_text(const struct review_notes *n, char *buf, size_t len);

/* summary.txt: the report, the notes, then the verdict. */
int review_notes_summary(int out_fd, const struct wb_changeset *cs, const struct review_notes *n,
                         struct rr_error *err);

/* OUT/changeset.patch: what `revrun diff --patch` prints for the set. */
int review_notes_patch(int out_fd, const struct wb_scan *scan, struct rr_error *err);

/* result.json: the strings for limitsHit, and the leftover member. */
struct json_writer;
void review_notes_limits_json(struct json_writer *w, const struct review_notes *n);
void review_notes_json(struct json_writer *w, const struct review_notes *n);

#endif
