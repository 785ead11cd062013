/* The apply journal: a write-ahead log of commit's steps, so that an apply
 * killed in the middle of its commit (kill -9, OOM, a crash) can be rolled
 * back later, by the next apply onto the same TARGET or by `revrun sweep`.
 *
 * Each step is logged before it is done, with the inode that shows whether
 * it happened; undoing a step checks that evidence first, so undoing a
 * logged step that never ran, or one already undone, changes nothing. A
 * COMMITTED record, written once everything is in place and synced, turns
 * recovery into removing the stage only.
 *
 * Whoever applies also holds flock(TARGET) for the whole apply, so applies
 * under different state roots take turns too, and a sweep opening TARGET
 * by its path leaves a running one alone.
 *
 * The caller keeps the journal outside TARGET (revrun keeps it in its state
 * root, writable by its owner only): a stage directory found in TARGET is
 * never trusted by itself, since a checkout could carry a planted one. */
#ifndef REVRUN_WB_JOURNAL_H
#define REVRUN_WB_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "common/error.h"

/* Stage directories are named STAGE_PREFIX + 16 hex digits. */
#define WB_STAGE_PREFIX ".revrun-apply-"
#define WB_STAGE_NAME_LEN (sizeof(WB_STAGE_PREFIX) - 1 + 16)

enum wb_step_op {
    WB_STEP_MOVED = 1, /* path moved into the stage as u<slot> */
    WB_STEP_MKDIR,     /* directory made at path; logged again with its ino
                          once made */
    WB_STEP_EXCHANGED, /* stage n<slot> exchanged with path; ino: the new object */
    WB_STEP_PLACED,    /* stage n<slot> renamed to path; ino: the new object */
    WB_STEP_COMMITTED, /* everything in place and synced */
};

struct wb_step {
    enum wb_step_op op;
    uint32_t slot;
    uint64_t ino;
    const char *path; /* relative to TARGET */
    size_t path_len;
};

/* Start a journal (truncating jfd) for an apply onto the directory tfd,
 * found at the absolute path target_path, staging in tfd/stage. */
int wb_journal_begin(int jfd, int tfd, const char *target_path, const char *stage,
                     struct rr_error *err);
int wb_journal_step(int jfd, const struct wb_step *s, struct rr_error *err);
/* Drop the steps, keep the header: every step is undone, so the stage may
 * go (a recovery then only removes what is left of it). */
int wb_journal_settle(int jfd, struct rr_error *err);
/* Empty the journal: nothing is left to recover. */
int wb_journal_clear(int jfd, struct rr_error *err);

/* The name of a step's object in the stage. */
void wb_stage_slot(char *buf, size_t len, const struct wb_step *s);

/* Undo one step if its effect is there. 0 done or nothing to do, -1 with
 * errno. */
int wb_undo_step(int tfd, int stage_fd, const struct wb_step *s);

/* The parent directory of path beneath tfd (O_PATH, no symlink, no mount
 * crossed); *name is the last component. -1 with errno. */
int wb_open_parent(int tfd, const char *path, size_t len, const char **name);

struct wb_recovery {
    bool found;      /* the journal held an apply */
    bool committed;  /* ... that had finished: only its stage was left */
    size_t undone;   /* steps rolled back */
    char target[4096];
};

/* Finish what the journal in jfd describes: roll TARGET back unless the
 * apply committed, remove the stage, then empty the journal. tfd is the
 * TARGET the caller opened, or -1 to open the recorded path; either way it
 * must be the very directory the journal was written for. On error the
 * journal is kept, so a later attempt can finish. */
int wb_journal_recover(int jfd, int tfd, struct wb_recovery *out, struct rr_error *err);

#endif
