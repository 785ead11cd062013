#include "writeback/base/textclass.h"

#include <string.h>

#include "common/cpclass.h"
#include "common/escape.h"

void wb_textclass_init(struct wb_textclass *t)
{
    memset(t, 0, sizeof(*t));
    t->last_nl = true; /* empty content has no lines */
}

static void flag(struct wb_textclass *t, const char *why)
{
    if (t->unsafe == NULL)
        t->unsafe = why;
}

static void control(struct wb_textclass *t, uint32_t cp, uint64_t at)
{
    if (cp == '\t' || cp == '\n')
        return;
    if (cp == 0) {
        if (at < WB_BINARY_PROBE)
            t->binary = true;
        flag(t, "a NUL byte");
    } else if (cp == '\r') {
        flag(t, "a carriage return");
    } else if (cp == 0x1b) {
        flag(t, "an escape character (ESC)");
    } else if (cp < 0x20) {
        flag(t, "a C0 control character");
    } else if (cp == 0x7f) {
        flag(t, "a DEL character");
    } else if (cp <= 0x9f) {
        flag(t, "a C1 control character");
    } else {
        flag(t, "a Unicode line or paragraph separator");
    }
}

/* One decoded code point (or, n == 0, bytes that are not UTF-8). */
static size_t one(struct wb_textclass *t, const unsigned char *p, size_t avail, uint64_t at)
{
    uint32_t cp;
    size_t n;

    if (p[0] < 0x80) {
        if (p[0] < 0x20 || p[0] == 0x7f)
            control(t, p[0], at);
        return 1;
    }
    if ((n = rr_utf8_decode(p, avail, &cp)) == 0) {
        flag(t, p[0] >= 0x80 && p[0] <= 0x9f ? "a C1 control character (raw byte)"
                                             : "bytes that are not UTF-8");
        return 1;
    }
    enum rr_cp_class c = rr_cp_class(cp);
    if (c == RR_CP_CONTROL)
        control(t, cp, at);
    else if (c == RR_CP_BIDI)
        flag(t, "a bidirectional control (Trojan Source: it reorders what is shown)");
    return n;
}

/* How many bytes at p[0..avail) could still be the start of one UTF-8
 * sequence cut at the end of the chunk (0 when none). */
static size_t incomplete_tail(const unsigned char *p, size_t avail)
{
    size_t need;

    if (p[0] < 0xc2 || p[0] > 0xf4)
        return 0;
    need = p[0] < 0xe0 ? 2 : p[0] < 0xf0 ? 3 : 4;
    if (avail >= need)
        return 0;
    for (size_t i = 1; i < avail; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return avail;
}

static void count_lines(struct wb_textclass *t, const unsigned char *p, size_t len)
{
    const unsigned char *nl = p, *end = p + len;

    if (len == 0)
        return;
    while ((nl = memchr(nl, '\n', (size_t)(end - nl))) != NULL) {
        t->lines++;
        nl++;
    }
    t->last_nl = p[len - 1] == '\n';
}

void wb_textclass_feed(struct wb_textclass *t, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i = 0;

    count_lines(t, p, len);
    /* finish a sequence the last chunk cut */
    while (t->npend > 0 && i < len) {
        unsigned char buf[4];
        size_t have = t->npend, take = len - i < 4 - have ? len - i : 4 - have, tail;
        memcpy(buf, t->pend, have);
        memcpy(buf + have, p + i, take);
        if ((tail = incomplete_tail(buf, have + take)) != 0) {
            memcpy(t->pend, buf, tail);
            t->npend = tail;
            i += take;
            t->off += take;
            return;
        }
        size_t n = one(t, buf, have + take, t->off - have);
        t->npend = 0;
        /* bytes of this chunk the sequence used (the carried ones came first) */
        size_t used = n > have ? n - have : 0;
        i += used;
        t->off += used;
        if (n <= have) {
            /* a bad lead byte: go on from the carried bytes after it */
            memmove(t->pend, buf + n, have - n);
            t->npend = have - n;
        }
    }
    while (i < len) {
        size_t run = i;
        while (run < len && ((p[run] >= 0x20 && p[run] < 0x7f) || p[run] == '\n' || p[run] == '\t'))
            run++; /* printable ASCII: nothing to look at */
        t->off += run - i;
        if ((i = run) == len)
            break;
        size_t tail = incomplete_tail(p + i, len - i);
        if (tail != 0) {
            memcpy(t->pend, p + i, tail);
            t->npend = tail;
            t->off += tail;
            return;
        }
        size_t n = one(t, p + i, len - i, t->off);
        i += n;
        t->off += n;
    }
}

void wb_textclass_finish(struct wb_textclass *t)
{
    if (t->npend > 0)
        flag(t, "bytes that are not UTF-8");
    t->npend = 0;
    if (!t->last_nl)
        t->lines++;
}
