/* git's delta format (a pack's OFS_DELTA and REF_DELTA entries): the base's
 * size, the result's size, then copy (from the base) and insert (literal)
 * instructions. Applied as hostile input: the declared base size must be
 * the base's, the result at most the caller's cap (checked before any
 * allocation), every copy within the base, no instruction writes past the
 * declared result, and the result is exactly as long as declared. Pure. */
#ifndef REVRUN_WB_GITDELTA_H
#define REVRUN_WB_GITDELTA_H

#include <stddef.h>

#include "common/error.h"

/* 1 and a new buffer (NUL-terminated) of the result, 0 and *why when the
 * delta is malformed or makes more than max bytes, -1 (ENOMEM). */
int wb_git_delta_apply(const unsigned char *base, size_t blen, const unsigned char *delta,
                       size_t dlen, size_t max, char **out, size_t *outlen, const char **why,
                       struct rr_error *err);

#endif
