/* Reading a container's activity record back (review, `revrun activity`). */
#include "runtime/container/activity.h"

#include <errno.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/container/container.h"
#include "runtime/container/statedir.h"

/* The record never grows past ACT_MAX_BYTES (its last line included); a
 * larger file is not one the monitor wrote. */
#define READ_MAX (ACT_MAX_BYTES + ACT_MAX_RECORD_BYTES)

int container_read_activity(const struct rr_ctx *ctx, const char *id, char **text, size_t *len,
                            struct rr_error *err)
{
    _cleanup_close_ int root = container_root(ctx, false, err);
    _cleanup_close_ int dir = -1;

    if (root < 0)
        return -1;
    dir = statedir_open(root, id, err);
    if (dir < 0)
        return -1;
    if (rr_read_file(dir, ACTIVITY_FILE, READ_MAX, text, len, err) < 0)
        return err->errnum == ENOENT ? rr_fail(err, ENOENT, "container %s has no activity record "
                                                      "(revrun.activity is \"off\"; for an "
                                                      "engine's, the host policy's activity is "
                                                      "not \"record\")", id)
                               : rr_wrap(err, "activity record");
    return 0;
}
