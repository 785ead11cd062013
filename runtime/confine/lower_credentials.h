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

/* ---- git configuration text (lower_gitconfig.c) ---- */

/* Does this git config text hold a credential? *line (1-based) and what
 * (a short description, never the secret) say where. */
bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what);

/* Where git, reading a config inside, finds an [include] or [includeIf]
 * file: one call per `path` key of such a section, in order. */
struct git_include_cursor {
    size_t pos;
    unsigned line;
    bool in_include;
};

/* The next include path of this config text, unquoted and unescaped as git
 * reads a value, into out: 1, with *line (1-based) where its key is; -1
 * when it did not fit in cap (git could not open it either); 0 at the end.
 * The cursor starts zeroed. */
int git_config_next_include(const char *text, size_t len, struct git_include_cursor *cur,
                            unsigned *line, char *out, size_t cap);

/* ---- the checkout's configuration files (lower_credentials.c) ---- */

/* What the agent sees where an absolute include (or "~/") leads: the
 * checkout's place inside, C's (NULL when it is not shown) and the agent's
 * HOME (NULL when unset). A NULL view maps nothing: such includes are then
 * taken to lie outside. */
struct lower_view {
    const char *checkout_inside;
    const char *common_inside;
    const char *home;
};

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
