/* A file of the agent's read at offsets, or a buffer standing for one (the
 * unit tests, the fuzzer). The size is taken once and every read is checked
 * against it before any byte moves, so a reader never goes past the end it
 * was given, whatever offsets the file's own tables claim; a file that
 * shrinks under it reads short and fails. Memory is the caller's buffer only. */
#ifndef REVRUN_WB_GITSPAN_H
#define REVRUN_WB_GITSPAN_H

#include <stddef.h>
#include <stdint.h>

struct wb_span {
    int fd;                     /* read with pread; -1: buf holds the bytes */
    const unsigned char *buf;
    uint64_t size;
};

/* len bytes at off into out: 0, or -1 with errno (ERANGE: past the end;
 * EIO: the file read short; pread's own). */
int wb_span_read(const struct wb_span *s, uint64_t off, void *out, size_t len);

/* Big-endian fields of git's on-disk formats. */
static inline uint32_t wb_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t wb_be64(const unsigned char *p)
{
    return (uint64_t)wb_be32(p) << 32 | wb_be32(p + 4);
}

#endif
