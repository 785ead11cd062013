/* The checkout must not hand the agent a credential: the agent reads every
 * file of the lower, .git included. actions/checkout leaves the job's token
 * in .git/config (http.<url>.extraheader), and in each submodule's
 * .git/modules/.../config, unless told persist-credentials: false; a remote
 * URL can carry user:token@; a credential helper can be an inline script. */
#ifndef REVRUN_LOWER_CREDENTIALS_H
#define REVRUN_LOWER_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* Does this git config text hold a credential? *line (1-based) and what
 * (a short description, never the secret) say where. */
bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what);

/* Refuse (EACCES, with the remedy) a lower whose git configuration holds
 * one: .git/config, .git/config.worktree and those of every submodule under
 * .git/modules. A .git that is a symlink is followed while it stays inside
 * the checkout; a config file that is a symlink is not read. */
int lower_refuse_credentials(const char *lower, struct rr_error *err);

/* The same for a worktree checkout's main git directory C (common_fd, at
 * common_path on the host), which the agent then reads too: C/config,
 * C/config.worktree, each C/worktrees/NAME's config.worktree (every
 * worktree's, this checkout's among them) and the submodules' below
 * C/modules and C/worktrees/NAME/modules. */
int lower_refuse_git_common(const char *common_path, int common_fd, struct rr_error *err);

#endif
