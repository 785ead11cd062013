/* zlib inflate of an object the agent wrote (a loose file, a pack entry),
 * into a buffer whose size the caller's cap decides: the output stops one
 * byte past the cap, so a bomb costs at most that, and a stream that does
 * not end within it is refused. Pure. */
#ifndef REVRUN_WB_GITINFLATE_H
#define REVRUN_WB_GITINFLATE_H

#include <stddef.h>

#include "common/error.h"

/* Inflate in into at most max bytes: 1 and a new NUL-terminated buffer,
 * 0 when it is not a valid stream or would inflate past max; -1 (ENOMEM). */
int wb_git_inflate(const void *in, size_t inlen, size_t max, char **out, size_t *outlen,
                   struct rr_error *err);

#endif
