/* Remove dirfd/name and everything below it, without following a symlink or
 * crossing a mount; an explicit stack of at most max_depth directories. */
#ifndef REVRUN_WB_RMTREE_H
#define REVRUN_WB_RMTREE_H

#include "common/error.h"

int wb_rmtree_at(int dirfd, const char *name, unsigned max_depth, struct rr_error *err);

#endif
