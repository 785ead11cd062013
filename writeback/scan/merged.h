/* Lookups in the merged view of a scanned upper (merged.c). */
#ifndef REVRUN_WB_MERGED_H
#define REVRUN_WB_MERGED_H

#include "writeback/names/resolve.h"
#include "writeback/scan/scan.h"

/* A wb_lookup_fn over a struct wb_scan. */
int wb_merged_lookup(void *ctx, const char *path, size_t len, struct wb_node *out,
                     struct rr_error *err);

/* True when the merged directory dir shows none of the checkout's entries
 * (it, or a directory above it, is opaque or not a directory in the upper). */
bool wb_merged_hides_lower(const struct wb_scan *s, const char *dir, size_t len);

/* Open the checkout's directory at path[0..len) beneath its top. */
int wb_lower_dir(const struct wb_scan *s, const char *path, size_t len, int flags);

#endif
