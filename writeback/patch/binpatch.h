/* git's "GIT binary patch" literal: the content deflated (stored blocks
 * only: no compression library needed, zlib reads them like any other) and
 * base85-encoded in lines of at most 52 bytes. */
#ifndef REVRUN_WB_BINPATCH_H
#define REVRUN_WB_BINPATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

/* "literal SIZE\n" + the lines + "\n". */
int wb_binpatch_literal(FILE *out, const unsigned char *data, size_t len, struct rr_error *err);

/* The same, streamed: rd reads n bytes at off of the content (len bytes in
 * all), so memory stays a few buffers whatever len is. */
typedef int (*wb_binpatch_read_fn)(void *ctx, uint64_t off, void *buf, size_t n,
                                   struct rr_error *err);
int wb_binpatch_literal_from(FILE *out, uint64_t len, wb_binpatch_read_fn rd, void *ctx,
                             struct rr_error *err);

/* zlib stream of stored blocks for data (new allocation of *zlen bytes). */
unsigned char *wb_zlib_stored(const unsigned char *data, size_t len, size_t *zlen);

/* One base85 line as git writes it: a length letter, then 5 characters per
 * 4 bytes (the last group zero-padded). len is 1..52; out needs 72 bytes. */
void wb_base85_line(const unsigned char *data, size_t len, char *out);

#endif
