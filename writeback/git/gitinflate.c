#include "writeback/git/gitinflate.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

int wb_git_inflate(const void *in, size_t inlen, size_t max, char **out, size_t *outlen,
                   struct rr_error *err)
{
    z_stream z = {0};
    char *buf = malloc(max + 1);
    int r;

    if (buf == NULL)
        return rr_fail(err, ENOMEM, "inflate");
    if (inflateInit(&z) != Z_OK) {
        free(buf);
        return rr_fail(err, ENOMEM, "inflate");
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)inlen;
    z.next_out = (Bytef *)buf;
    z.avail_out = (uInt)max + 1; /* one byte more than allowed: a longer stream shows */
    r = inflate(&z, Z_FINISH);
    inflateEnd(&z);
    if (r != Z_STREAM_END || z.total_out > max) {
        free(buf);
        return 0;
    }
    buf[z.total_out] = '\0';
    *out = buf;
    *outlen = z.total_out;
    return 1;
}
