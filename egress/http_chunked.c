/* A streaming validator for chunked request bodies. The bytes are forwarded
 * as they are, so the validator only has to make sure that the upstream can
 * read them one way: where the body ends, and how big it is. */
#include "common/escape.h"
#include "egress/http_head.h"

enum {
    CH_SIZE = 0, /* the zero state: a new struct eg_chunked starts here */
    CH_SIZE_LF,
    CH_DATA,
    CH_DATA_CR,
    CH_DATA_LF,
    CH_TRAILER_CR,
    CH_TRAILER_LF,
    CH_DONE,
};

/* One byte of the chunk-size line. No extensions, no whitespace: a server
 * that skips them and one that does not could disagree on the size. */
static int size_byte(struct eg_chunked *c, char b, uint64_t max_body, struct eg_refusal *why)
{
    int d = rr_hexval(b);

    if (c->state == CH_SIZE) {
        if (d >= 0 && c->digits < 16) {
            c->size = c->size * 16 + (uint64_t)d;
            c->digits++;
            return 0;
        }
        if (b != '\r' || c->digits == 0)
            return eg_refuse(why, 400, "malformed chunk size");
        c->state = CH_SIZE_LF;
        return 0;
    }
    if (b != '\n')
        return eg_refuse(why, 400, "malformed chunk size");
    if (c->size > max_body - c->total)
        return eg_refuse(why, 413, "request body too large");
    c->total += c->size;
    c->remaining = c->size;
    c->state = c->size == 0 ? CH_TRAILER_CR : CH_DATA;
    c->size = 0;
    c->digits = 0;
    return 0;
}

/* Everything but chunk data and the size line: the CRLFs, and the empty
 * trailer section. */
static int framing_byte(struct eg_chunked *c, char b, struct eg_refusal *why)
{
    static const struct {
        char want;
        int next;
        const char *reason;
    } step[] = {
        [CH_DATA_CR] = {'\r', CH_DATA_LF, "missing CRLF after chunk data"},
        [CH_DATA_LF] = {'\n', CH_SIZE, "missing CRLF after chunk data"},
        [CH_TRAILER_CR] = {'\r', CH_TRAILER_LF, "trailer fields are not allowed"},
        [CH_TRAILER_LF] = {'\n', CH_DONE, "malformed last chunk"},
    };

    if (b != step[c->state].want)
        return eg_refuse(why, 400, step[c->state].reason);
    c->state = step[c->state].next;
    return 0;
}

int eg_chunked_feed(struct eg_chunked *c, const char *buf, size_t len, uint64_t max_body,
                    size_t *used, struct eg_refusal *why)
{
    size_t i = 0;

    while (i < len && c->state != CH_DONE) {
        int r;

        if (c->state == CH_DATA) {
            uint64_t take = len - i < c->remaining ? len - i : c->remaining;
            i += (size_t)take;
            c->remaining -= take;
            if (c->remaining == 0)
                c->state = CH_DATA_CR;
            continue;
        }
        if (c->state == CH_SIZE || c->state == CH_SIZE_LF)
            r = size_byte(c, buf[i], max_body, why);
        else
            r = framing_byte(c, buf[i], why);
        if (r < 0)
            return EG_REFUSED;
        i++;
    }
    *used = i;
    return c->state == CH_DONE ? EG_COMPLETE : EG_NEED_MORE;
}
