#include "writeback/git/gitspan.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int wb_span_read(const struct wb_span *s, uint64_t off, void *out, size_t len)
{
    size_t done = 0;

    if (len == 0)
        return 0;
    if (off > s->size || len > s->size - off) {
        errno = ERANGE;
        return -1;
    }
    if (s->fd < 0) {
        memcpy(out, s->buf + off, len);
        return 0;
    }
    while (done < len) {
        ssize_t r = pread(s->fd, (char *)out + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}
