/* The checkout must not hand the agent a credential: the agent reads every
 * file of the lower, .git included. actions/checkout leaves the job's token
 * in .git/config (http.<url>.extraheader), and in each submodule's
 * .git/modules/.../config, unless told persist-credentials: false; a remote
 * URL can carry user:token@; a credential helper can be an inline script;
 * git keeps other secrets under their own keys (sendemail.smtpPass,
 * hub.oauthtoken, a cookie file in the checkout: git_config_secrets.h). */
#ifndef REVRUN_LOWER_CREDENTIALS_H
#define REVRUN_LOWER_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "runtime/confine/git_config_secrets.h"

/* Refuse (EACCES, with the remedy) a lower whose git configuration holds
 * one: .git/config, .git/config.worktree and those of every submodule under
 * .git/modules, and every file they include ([include] and [includeIf]
 * path, whatever the condition, relative to the including file or, when
 * absolute or "~/", where it lies inside), at most 10 deep (git's limit)
 * and 64 files per configuration, each file read once. A .git that is a
 * symlink is followed while it stays inside the checkout; a config or
 * included file is read through symlinks that stay beneath the checkout
 * (openat2 RESOLVE_BENEATH), and refused when one leads out of it. */
int lower_refuse_credentials(const char *lower, const struct lower_view *v, struct rr_error *err);

/* The same for a worktree checkout's main git directory C (common_fd, at
 * common_path on the host), which the agent then reads too: C/config,
 * C/config.worktree, each C/worktrees/NAME's config.worktree (every
 * worktree's, this checkout's among them) and the submodules' below
 * C/modules and C/worktrees/NAME/modules, with their includes (beneath C,
 * or in the checkout at lower when an absolute one leads there). */
int lower_refuse_git_common(const char *common_path, int common_fd, const char *lower,
                            const struct lower_view *v, struct rr_error *err);

#endif
