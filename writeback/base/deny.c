#include "writeback/base/deny.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

static int push_secret(struct wb_deny *d, const char *s, size_t len, struct rr_error *err)
{
    char **ns;
    size_t *nl;

    if (d->n == WB_DENY_MAX_SECRETS)
        return rr_fail(err, E2BIG, "more than %d secrets", WB_DENY_MAX_SECRETS);
    if (len < WB_DENY_MIN_LEN || len > WB_DENY_MAX_LEN)
        return rr_fail(err, EINVAL, "line %zu: a secret must be %d to %d bytes", d->n + 1,
                       WB_DENY_MIN_LEN, WB_DENY_MAX_LEN);
    ns = realloc(d->secret, (d->n + 1) * sizeof(*ns));
    if (ns == NULL)
        return rr_fail(err, ENOMEM, "secrets");
    d->secret = ns;
    nl = realloc(d->len, (d->n + 1) * sizeof(*nl));
    if (nl == NULL)
        return rr_fail(err, ENOMEM, "secrets");
    d->len = nl;
    if ((d->secret[d->n] = malloc(len)) == NULL)
        return rr_fail(err, ENOMEM, "secrets");
    memcpy(d->secret[d->n], s, len);
    d->len[d->n++] = len;
    if (len > d->maxlen)
        d->maxlen = len;
    return 0;
}

int wb_deny_parse(const char *text, size_t len, struct wb_deny *d, struct rr_error *err)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len, n = end - i;
        if (n > 0 && text[i + n - 1] == '\r')
            n--;
        if (n > 0 && push_secret(d, text + i, n, err) < 0) {
            wb_deny_free(d);
            return -1;
        }
        i = end + 1;
    }
    return 0;
}

int wb_deny_load(const char *path, struct wb_deny *d, struct rr_error *err)
{
    _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    _cleanup_free_ char *buf = malloc(WB_DENY_MAX_FILE + 1);
    size_t used = 0;
    ssize_t n;

    if (fd < 0)
        return rr_fail(err, errno, "open %s", path);
    if (buf == NULL)
        return rr_fail(err, ENOMEM, "read %s", path);
    while ((n = read(fd, buf + used, WB_DENY_MAX_FILE + 1 - used)) > 0)
        if ((used += (size_t)n) > WB_DENY_MAX_FILE)
            return rr_fail(err, EFBIG, "%s: larger than %u bytes", path, WB_DENY_MAX_FILE);
    if (n < 0)
        return rr_fail(err, errno, "read %s", path);
    if (wb_deny_parse(buf, used, d, err) < 0)
        return rr_wrap(err, "%s", path);
    return 0;
}

void wb_deny_free(struct wb_deny *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->secret[i]);
    free(d->secret);
    free(d->len);
    *d = (struct wb_deny){0};
}

bool wb_deny_match(const struct wb_deny *d, const void *buf, size_t len)
{
    for (size_t i = 0; d != NULL && i < d->n; i++)
        if (memmem(buf, len, d->secret[i], d->len[i]) != NULL)
            return true;
    return false;
}

int wb_deny_stream_init(struct wb_deny_stream *s, const struct wb_deny *d, struct rr_error *err)
{
    *s = (struct wb_deny_stream){.d = d};
    if (d == NULL || d->n == 0)
        return 0;
    s->tail = malloc(d->maxlen);
    s->seam = malloc(2 * d->maxlen);
    if (s->tail == NULL || s->seam == NULL) {
        wb_deny_stream_free(s);
        return rr_fail(err, ENOMEM, "secret canary");
    }
    return 0;
}

void wb_deny_stream_feed(struct wb_deny_stream *s, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    size_t keep, head;

    if (s->d == NULL || s->d->n == 0 || s->hit || len == 0)
        return;
    keep = s->d->maxlen - 1;
    /* A match across the seam starts in the tail and ends in buf's head. */
    head = len < keep ? len : keep;
    memcpy(s->seam, s->tail, s->tail_len);
    memcpy(s->seam + s->tail_len, p, head);
    if (wb_deny_match(s->d, s->seam, s->tail_len + head) || wb_deny_match(s->d, p, len)) {
        s->hit = true;
        return;
    }
    if (len >= keep) {
        memcpy(s->tail, p + len - keep, keep);
        s->tail_len = keep;
    } else {
        size_t total = s->tail_len + len, drop = total > keep ? total - keep : 0;
        memmove(s->tail, s->tail + drop, s->tail_len - drop);
        memcpy(s->tail + s->tail_len - drop, p, len);
        s->tail_len = total - drop;
    }
}

void wb_deny_stream_free(struct wb_deny_stream *s)
{
    free(s->tail);
    free(s->seam);
    s->tail = s->seam = NULL;
}
