/* apply's verify, the one step that reads TARGET's content: is the file at a
 * path still the base? Apart from apply.c so a test can hand it a stat that
 * no longer describes the name (a file swapped or grown in between). */
#ifndef REVRUN_WB_APPLY_SAME_H
#define REVRUN_WB_APPLY_SAME_H

#include <sys/stat.h>

#include "common/error.h"
#include "writeback/changeset/changeset.h"

enum ap_same {
    AP_DIFFERENT, /* not a regular file, or not base's size or bytes */
    AP_SAME,      /* the inode *st described, holding base's bytes */
    AP_MOVED,     /* not the inode *st described, or it changed while read */
};

/* Compare pfd/name, which fstatat (AT_SYMLINK_NOFOLLOW) described as *st,
 * with base (a file). An enum ap_same, or -1 with err filled. */
int ap_same_file(int pfd, const char *name, const struct stat *st, const struct wb_obj *base,
                 struct rr_error *err);

#endif
