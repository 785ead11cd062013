#ifndef REVRUN_PATHS_H
#define REVRUN_PATHS_H

#include <stddef.h>

#include "common/error.h"

/* /run/revrun for root; $XDG_RUNTIME_DIR/revrun for everyone else. */
int paths_default_root(char *buf, size_t len, struct rr_error *err);

#endif
