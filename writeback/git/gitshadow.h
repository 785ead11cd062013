/* Where the git classification's shadow repositories live (gitclass.h), and
 * cleaning the ones a crashed or killed vet left behind (`revrun sweep`).
 * A live vet holds an exclusive flock on its shadow directory for as long
 * as it uses it, so a sweep can tell a leftover (lockable) from one in use. */
#ifndef REVRUN_WB_GITSHADOW_H
#define REVRUN_WB_GITSHADOW_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define WB_SHADOW_PREFIX "revrun-gitignore."
#define WB_SHADOW_DEPTH 300u /* as deep as the walk goes (256), and the shadow's .git */
#define WB_SHADOW_MIN_AGE 60u /* seconds: one just made, not yet locked, is left alone */

/* $TMPDIR when it is an absolute path, else /tmp. */
const char *wb_shadow_parent(void);

/* Remove the shadows in wb_shadow_parent() that this euid owns, that no
 * process holds locked, and that are at least older_than_s (and
 * WB_SHADOW_MIN_AGE) seconds old; *removed counts them. Nothing that is a
 * symlink, or someone else's, is touched. */
int wb_shadow_sweep(uint64_t older_than_s, size_t *removed, struct rr_error *err);

#endif
