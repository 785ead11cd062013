/* Where revrun keeps the journals of applies (writeback/apply/journal.h): in the
 * state root, <root>/.apply/<dev>-<ino> for each TARGET directory, a file
 * only the state root's owner can write. Whoever applies to a TARGET holds
 * its journal's lock for the whole apply, so two applies onto one TARGET
 * take turns, and sweep never recovers an apply that is still running. */
#ifndef REVRUN_APPLY_JOURNAL_H
#define REVRUN_APPLY_JOURNAL_H

#include "common/error.h"
#include "runtime/container/ctx.h"
#include "runtime/jobs/sweep.h"

struct apply_journal {
    int dir; /* <root>/.apply */
    int fd;  /* the journal, locked */
    char name[48];
};

/* Open and lock (waiting for another apply) the journal for the directory
 * tfd. */
int apply_journal_open(const struct rr_ctx *ctx, int tfd, struct apply_journal *j,
                       struct rr_error *err);
/* Unlock; an empty journal is removed. */
void apply_journal_close(struct apply_journal *j);

/* Recover every journal of an apply that died (skipping those whose apply is
 * still running, and with older_than_s, the younger ones). */
int apply_journal_sweep(const struct rr_ctx *ctx, uint64_t older_than_s,
                        struct sweep_report *rep, struct rr_error *err);

#endif
