/* The chunked-body validator of egress/http_chunked.c. */
#include <string.h>

#include "egress/http.h"
#include "tests/tap.h"

static struct eg_refusal why;

/* Feed s in pieces of step bytes; EG_COMPLETE/EG_NEED_MORE/EG_REFUSED, and
 * the offset where the body ended. */
static int feed(const char *s, size_t step, uint64_t max, size_t *end)
{
    struct eg_chunked c = {0};
    size_t len = strlen(s), at = 0;

    why = (struct eg_refusal){0};
    while (at < len) {
        size_t n = len - at < step ? len - at : step, used = 0;
        int r = eg_chunked_feed(&c, s + at, n, max, &used, &why);
        if (r != EG_NEED_MORE) {
            *end = at + used;
            return r;
        }
        if (used != n)
            return -99;
        at += n;
    }
    *end = at;
    return EG_NEED_MORE;
}

static int status_of(const char *s)
{
    size_t end;
    int r = feed(s, 1000, 1 << 20, &end);
    return r == EG_REFUSED ? why.status : r;
}

TEST(finds_the_end_in_any_split)
{
    const char *body = "5\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n\r\nGET /next";
    size_t want = strlen(body) - strlen("GET /next");

    for (size_t step = 1; step <= strlen(body); step++) {
        size_t end = 0;
        if (!CHECK(feed(body, step, 1 << 20, &end) == EG_COMPLETE && end == want))
            tap_note("step %zu", step);
    }
}

TEST(needs_more_until_the_last_chunk)
{
    size_t end;
    CHECK(feed("5\r\nhello\r\n", 3, 100, &end) == EG_NEED_MORE);
    CHECK(feed("5\r\nhello\r\n0\r\n", 3, 100, &end) == EG_NEED_MORE);
    CHECK(feed("0\r\n\r\n", 1, 100, &end) == EG_COMPLETE && end == 5);
}

TEST(refuses_malformed_sizes)
{
    CHECK(status_of("\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("-5\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("+5\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of(" 5\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("5 \r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("0x5\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("5\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("10000000000000005\r\nhello\r\n0\r\n\r\n") == 400);
}

TEST(refuses_extensions_and_trailers)
{
    CHECK(status_of("5;ext=1\r\nhello\r\n0\r\n\r\n") == 400);
    CHECK(status_of("5\r\nhello\r\n0;x\r\n\r\n") == 400);
    /* a trailer field could carry a credential past the header stripping */
    CHECK(status_of("5\r\nhello\r\n0\r\nx-api-key: k\r\n\r\n") == 400);
}

TEST(refuses_data_not_followed_by_crlf)
{
    CHECK(status_of("5\r\nhello!\r\n0\r\n\r\n") == 400);
    CHECK(status_of("5\r\nhello\n0\r\n\r\n") == 400);
    CHECK(status_of("5\r\nhello\r\n0\r\n\n") == 400);
}

TEST(caps_the_decoded_size)
{
    size_t end;
    CHECK(feed("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\n", 4, 10, &end) == EG_COMPLETE);
    CHECK(feed("5\r\nhello\r\n6\r\nworld!\r\n0\r\n\r\n", 4, 10, &end) == EG_REFUSED);
    CHECK(why.status == 413);
    /* a size near 2^64 cannot wrap the running total */
    CHECK(feed("5\r\nhello\r\nFFFFFFFFFFFFFFFF\r\n", 4, 10, &end) == EG_REFUSED);
    CHECK(why.status == 413);
}
