/* Keeping an engine container's finished activity record past its state
 * directory (the host policy's activityRoot): an engine deletes the
 * container, and with it the state directory, as soon as it has ended
 * (containerd's CRI does at once), so the record an operator reads later
 * must live elsewhere. The recorder copies it there once its last line is
 * written: ROOT/ID.jsonl, root's, 0600, never replacing one already there
 * (a reused id gets ID@N.jsonl). */
#ifndef REVRUN_ACTIVITY_KEEP_H
#define REVRUN_ACTIVITY_KEEP_H

#include "common/error.h"

/* The root: a directory of root's that nobody else may write, below
 * directories that only root may change (the recorder writes there as
 * root, under the container's id); made 0700 when only its last component
 * is missing. Opened component by component, no symlink followed. */
int activity_keep_open(const char *root, struct rr_error *err);

/* Copy what record_fd holds (from its start) to root_fd/ID.jsonl: written
 * under a temporary name, then renamed without replacing. */
int activity_keep(int root_fd, const char *id, int record_fd, struct rr_error *err);

#endif
