/* The checkout must not hand the agent a credential: the agent reads every
 * file of the lower, .git included. actions/checkout leaves the job's token
 * in .git/config (http.<url>.extraheader) unless told persist-credentials:
 * false, and a remote URL can carry user:token@. */
#ifndef REVRUN_LOWER_CREDENTIALS_H
#define REVRUN_LOWER_CREDENTIALS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* Does this git config text hold a credential? *line (1-based) and what
 * (a short description, never the secret) say where. */
bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what);

/* Refuse (EACCES, with the remedy) a lower whose .git/config holds one. A
 * .git/config that is a symlink or missing is not read: a symlink resolves
 * inside the container's view, not to this file. */
int lower_refuse_credentials(const char *lower, struct rr_error *err);

#endif
