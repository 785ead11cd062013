/* revrun's own reader of a git index (.git/index), the agent's or the
 * checkout's, as the hostile bytes it is. It answers one question: is path
 * P (or anything below directory D) an entry? libgit2 never sees an index:
 * its reader recurses as deep as the cache-tree extension says and expands
 * index-v4 paths into one allocation each (review3 R7, R3).
 *
 * Versions 2, 3 and 4. Every length and offset is checked against the
 * file; the entry count against what the file can hold; paths are at most
 * WB_GITINDEX_PATH_MAX bytes, free of NUL, and sorted as git sorts them (so
 * a binary search answers). Extensions (cache tree, untracked cache, ...)
 * are skipped by their declared size, never parsed. The trailing checksum
 * is not checked: nothing revrun concludes depends on it (a torn file fails
 * the structure checks or answers for what it holds).
 *
 * Memory: the file itself, 8 bytes per entry, and for v4 the full path of
 * one entry in WB_GITINDEX_RESTART (at most 4 KiB per 64 entries of at
 * least 64 bytes each: no more than the file again). A v4 entry between two
 * such restart points is decoded on demand into a 4 KiB buffer: a lookup
 * costs a binary search plus at most WB_GITINDEX_RESTART decodes. No
 * recursion. Pure: no file is opened here (gitclass.c reads the file). */
#ifndef REVRUN_WB_GITINDEX_H
#define REVRUN_WB_GITINDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define WB_GITINDEX_PATH_MAX 4096u /* bytes of one entry's path */
#define WB_GITINDEX_RESTART 64u    /* v4: a full path kept every this many entries */

struct wb_gitindex;

/* Parse the index in buf[0..len), taking buf (malloc'd) in every case.
 * Returns 1 with *out, 0 when the bytes are not an index revrun reads (why
 * says so, revrun's own words), or -1 (out of memory) with err. */
int wb_gitindex_parse(char *buf, size_t len, struct wb_gitindex **out, char *why, size_t why_len,
                      struct rr_error *err);

/* path[0..len) is an entry (at any stage). */
bool wb_gitindex_has(const struct wb_gitindex *ix, const char *path, size_t len);

/* Some entry lies below the directory dir[0..len) (no trailing slash). */
bool wb_gitindex_has_below(const struct wb_gitindex *ix, const char *dir, size_t len);

size_t wb_gitindex_count(const struct wb_gitindex *ix);

void wb_gitindex_free(struct wb_gitindex *ix);

#endif
