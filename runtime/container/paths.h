#ifndef REVRUN_PATHS_H
#define REVRUN_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* /run/revrun for root; $XDG_RUNTIME_DIR/revrun for everyone else; with no
 * XDG_RUNTIME_DIR (a cron job, `su`, a CI runner's plain user), the
 * private per-user directory /tmp/revrun-UID, and *private is set: it
 * sits in a directory everyone may write, so it is used only through
 * paths_private_dir. Nothing is made here. */
int paths_default_root(char *buf, size_t len, bool *private_dir, struct rr_error *err);

/* PATH is a directory of the caller's own that no one else may enter:
 * not a symlink, owned by the effective uid, mode 0700 (no group or other
 * bit). With create, it is made (0700) when missing. Without create, a
 * missing one is ENOENT. Anything else there is refused (EPERM): someone
 * may have planted it. /tmp is sticky: once the directory is the user's,
 * no one else can rename or replace it between this check and its use. */
int paths_private_dir(const char *path, bool create, struct rr_error *err);

#endif
