/* The state root (/run/revrun or $XDG_RUNTIME_DIR/revrun, mode 0700) and one
 * directory per container in it, guarded by a lock file so two commands on
 * the same ID never interleave. */
#ifndef REVRUN_STATEDIR_H
#define REVRUN_STATEDIR_H

#include <stdbool.h>

#include "bundle/state.h"
#include "common/error.h"

#define STATE_FILE "state.json"
#define EXIT_FILE "exit.json"
#define CONFIG_FILE "config.json" /* the config as it was at create */
#define FIFO_FILE "exec.fifo"
#define LOCK_FILE "lock"
#define STORE_DIR "store"
/* in the store: the upper and work of a worktree's main git directory */
#define STORE_GIT_UPPER "gitupper"
#define STORE_GIT_WORK "gitwork"
#define BUNDLE_DIR "bundle"
#define ROOTFS_DIR "rootfs" /* where the container's root tmpfs is attached */
#define HOME_DIR "home"     /* the agent's HOME tmpfs, in the monitor's namespace (home_store) */

/* Open the state root, creating it and its missing parents (0700, the
 * caller's, no symlink followed on the way) when asked. Refused when another
 * user owns it or others may write into it. */
int statedir_root(const char *root, bool create, struct rr_error *err);

/* mkdir root/ID (0700): fails with EEXIST when the ID is taken. */
int statedir_create(int rootfd, const char *id, struct rr_error *err);

/* Open root/ID; ENOENT: "container ID does not exist". */
int statedir_open(int rootfd, const char *id, struct rr_error *err);

/* flock the container's lock file (exclusive, waiting). Returns its fd. */
int statedir_lock(int dirfd, struct rr_error *err);

int statedir_read_state(int dirfd, struct rr_state *s, struct rr_error *err);
int statedir_write_state(int dirfd, const struct rr_state *s, struct rr_error *err);

/* 1 with *e filled, 0 when there is no exit record yet, -1 on error. */
int statedir_read_exit(int dirfd, struct rr_exit *e, struct rr_error *err);
int statedir_write_exit(int dirfd, const struct rr_exit *e, struct rr_error *err);

/* Remove root/ID entirely. */
int statedir_remove(int rootfd, const char *id, struct rr_error *err);

#endif
