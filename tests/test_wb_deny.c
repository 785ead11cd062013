#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writeback/base/fsutil.h"

#include "tests/tap.h"
#include "writeback/base/deny.h"

static struct wb_deny load(const char *text)
{
    struct wb_deny d = {0};
    struct rr_error err;

    CHECK(wb_deny_parse(text, strlen(text), &d, &err) == 0);
    return d;
}

TEST(deny_parse_lines)
{
    struct wb_deny d = load("sk-live-123456\r\n\nghp_abcdef\n");
    struct rr_error err;

    CHECK(d.n == 2);
    CHECK(d.len[0] == 14 && memcmp(d.secret[0], "sk-live-123456", 14) == 0);
    wb_deny_free(&d);
    CHECK(wb_deny_parse("abc\n", 4, &d, &err) < 0); /* too short to be a secret */
}

TEST(deny_match_whole_and_streamed)
{
    struct wb_deny d = load("sk-live-123456\nghp_abcdef\n");
    struct wb_deny_stream s;
    struct rr_error err;
    const char *text = "export TOKEN=sk-live-123456 # oops";

    CHECK(wb_deny_match(&d, text, strlen(text)));
    CHECK(!wb_deny_match(&d, "sk-live-12345", 13));
    /* byte by byte: every seam is crossed */
    CHECK(wb_deny_stream_init(&s, &d, &err) == 0);
    for (size_t i = 0; i < strlen(text); i++)
        wb_deny_stream_feed(&s, text + i, 1);
    CHECK(s.hit);
    wb_deny_stream_free(&s);
    /* split in two uneven chunks */
    CHECK(wb_deny_stream_init(&s, &d, &err) == 0);
    wb_deny_stream_feed(&s, "xxxxxxxxxxxxxxxxxxxxghp_ab", 26);
    wb_deny_stream_feed(&s, "cdef", 4);
    CHECK(s.hit);
    wb_deny_stream_free(&s);
    CHECK(wb_deny_stream_init(&s, &d, &err) == 0);
    wb_deny_stream_feed(&s, "ghp_ab", 6);
    wb_deny_stream_feed(&s, "zcdef", 5);
    CHECK(!s.hit);
    wb_deny_stream_free(&s);
    wb_deny_free(&d);
}

/* Sizes are checked while reading: a file longer than the cap stops there. */
TEST(hash_stops_at_the_cap_while_reading)
{
    char path[] = "/tmp/wbhash.XXXXXX";
    int fd = mkstemp(path);
    struct wb_content c;
    struct rr_error err;

    CHECK(fd >= 0 && write(fd, "0123456789", 10) == 10);
    lseek(fd, 0, SEEK_SET);
    CHECK(wb_hash_fd(fd, 4, 5, NULL, &c, &err) == 0); /* it said 4 bytes: it has 10 */
    CHECK(c.over_cap);
    lseek(fd, 0, SEEK_SET);
    CHECK(wb_hash_fd(fd, 10, 10, NULL, &c, &err) == 0 && !c.over_cap && c.size == 10);
    lseek(fd, 0, SEEK_SET);
    CHECK(wb_hash_fd(fd, 9, 10, NULL, &c, &err) < 0); /* changed under us */
    close(fd);
    unlink(path);
}
