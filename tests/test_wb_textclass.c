/* writeback/base/textclass.c and siphash.c: what the patch may print as text,
 * and the keyed line hash it compares lines by. */
#include <string.h>

#include "tests/tap.h"
#include "writeback/patch/siphash.h"
#include "writeback/base/textclass.h"

#define S(x) x, sizeof(x) - 1

/* Classify text fed in pieces of step bytes (every cut of a UTF-8
 * sequence is met for small steps). */
static const char *why(const char *text, size_t len, size_t step, bool *binary)
{
    struct wb_textclass t;

    wb_textclass_init(&t);
    for (size_t i = 0; i < len; i += step)
        wb_textclass_feed(&t, text + i, len - i < step ? len - i : step);
    wb_textclass_finish(&t);
    if (binary)
        *binary = t.binary;
    return t.unsafe;
}

static bool unsafe_as(const char *text, size_t len, const char *want)
{
    for (size_t step = 1; step <= len + 1; step++) {
        const char *w = why(text, len, step, NULL);
        if ((want == NULL) != (w == NULL) || (want && strcmp(w, want) != 0)) {
            tap_note("step %zu: got %s, want %s", step, w ? w : "(safe)", want ? want : "(safe)");
            return false;
        }
    }
    return true;
}

TEST(text_that_prints_as_it_is)
{
    CHECK(unsafe_as(S("int main(void)\n{\n\treturn 0;\n}\n"), NULL));
    CHECK(unsafe_as(S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n"), NULL)); /* é € emoji */
    CHECK(unsafe_as(S("\xef\xbb\xbfwith a BOM\n"), NULL));
    CHECK(unsafe_as(S(""), NULL));
}

TEST(content_a_terminal_acts_on_is_unsafe_with_its_reason)
{
    CHECK(unsafe_as(S("echo safe\r# rm -rf ~\n"), "a carriage return"));
    CHECK(unsafe_as(S("x\x1b[2Jy\n"), "an escape character (ESC)"));
    CHECK(unsafe_as(S("vt\x0b\n"), "a C0 control character"));
    CHECK(unsafe_as(S("ff\x0c\n"), "a C0 control character"));
    CHECK(unsafe_as(S("del\x7f\n"), "a DEL character"));
    CHECK(unsafe_as(S("csi \xc2\x9b" "31m\n"), "a C1 control character"));
    CHECK(unsafe_as(S("raw \x9b" "31m\n"), "a C1 control character (raw byte)"));
    CHECK(unsafe_as(S("bad \xff\n"), "bytes that are not UTF-8"));
    CHECK(unsafe_as(S("cut \xe2\x82"), "bytes that are not UTF-8")); /* at the end */
    CHECK(unsafe_as(S("overlong \xc0\xaf\n"), "bytes that are not UTF-8"));
    CHECK(unsafe_as(S("ls\xe2\x80\xa8x\n"), "a Unicode line or paragraph separator"));
    CHECK(unsafe_as(S("a \xe2\x80\xae b\n"),
                    "a bidirectional control (Trojan Source: it reorders what is shown)"));
    CHECK(unsafe_as(S("a \xe2\x81\xa6 b\n"),
                    "a bidirectional control (Trojan Source: it reorders what is shown)"));
    /* the first reason found is the one given */
    CHECK(unsafe_as(S("a\rb\x1b"), "a carriage return"));
}

TEST(nul_in_the_probe_is_binary_later_unsafe)
{
    char buf[9000];
    bool bin;

    memset(buf, 'a', sizeof(buf));
    buf[10] = '\0';
    CHECK(why(buf, sizeof(buf), 4096, &bin) != NULL && bin);
    buf[10] = 'a';
    buf[8500] = '\0';
    CHECK(strcmp(why(buf, sizeof(buf), 4096, &bin), "a NUL byte") == 0 && !bin);
}

TEST(lines_are_counted_across_pieces)
{
    struct wb_textclass t;

    wb_textclass_init(&t);
    wb_textclass_feed(&t, S("a\nb"));
    wb_textclass_feed(&t, S("c\n\nd"));
    wb_textclass_finish(&t);
    CHECK(t.lines == 4 && !t.last_nl);
    wb_textclass_init(&t);
    wb_textclass_feed(&t, S("\n\n\n"));
    wb_textclass_finish(&t);
    CHECK(t.lines == 3 && t.last_nl);
}

TEST(siphash_2_4_reference_vector)
{
    /* the paper's vector: key 00..0f, message 00..0e */
    const uint64_t key[2] = {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};
    unsigned char msg[15];
    struct wb_siphash h;

    for (int i = 0; i < 15; i++)
        msg[i] = (unsigned char)i;
    wb_siphash_init(&h, key);
    wb_siphash_update(&h, msg, sizeof(msg));
    CHECK(wb_siphash_final(&h) == 0xa129ca6149be45e5ULL);
    /* fed in pieces, the same */
    wb_siphash_init(&h, key);
    wb_siphash_update(&h, msg, 3);
    wb_siphash_update(&h, msg + 3, 9);
    wb_siphash_update(&h, msg + 12, 3);
    CHECK(wb_siphash_final(&h) == 0xa129ca6149be45e5ULL);
}
