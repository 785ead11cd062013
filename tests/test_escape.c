/* common/escape.c: hostile text made safe for a terminal or a log. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "common/cpclass.h"
#include "common/escape.h"
#include "tests/tap.h"

#define MARK "...[truncated]"

static char out[4096];

static const char *esc(const char *s, size_t len)
{
    return rr_escape(s, len, out, sizeof(out));
}

/* s escapes to want (both NUL-terminated, s by strlen unless len). */
static bool escapes_to(const char *s, const char *want)
{
    esc(s, strlen(s));
    if (strcmp(out, want) != 0) {
        tap_note("got \"%s\", want \"%s\"", out, want);
        return false;
    }
    return true;
}

TEST(printable_ascii_passes)
{
    CHECK(escapes_to("hello, world: a/b.c [x] {y} ~!@#$%^&*()_+`'\"<>?",
                     "hello, world: a/b.c [x] {y} ~!@#$%^&*()_+`'\"<>?"));
    CHECK(escapes_to("", ""));
}

TEST(control_bytes_are_escaped)
{
    CHECK(escapes_to("a\nb\tc\rd", "a\\x0ab\\x09c\\x0dd"));
    CHECK(escapes_to("\x01\x07\x08\x1f\x7f", "\\x01\\x07\\x08\\x1f\\x7f"));
    CHECK(strcmp(esc("a\0b", 3), "a\\x00b") == 0);
}

TEST(escape_sequences_are_defused)
{
    CHECK(escapes_to("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"));
    CHECK(escapes_to("\x1b]0;title\x07", "\\x1b]0;title\\x07"));
    CHECK(escapes_to("\x1b"
                     "c",
                     "\\x1bc"));
}

TEST(c1_controls_are_escaped)
{
    /* U+0080..U+009F, as UTF-8: CSI (U+009B) acts like ESC [ on some
     * terminals. */
    CHECK(escapes_to("\xc2\x9b"
                     "31m",
                     "\\xc2\\x9b31m"));
    CHECK(escapes_to("\xc2\x80\xc2\x85\xc2\x9f", "\\xc2\\x80\\xc2\\x85\\xc2\\x9f"));
    /* U+00A0 (a space that is not one) is escaped, U+00A1 passes. */
    CHECK(escapes_to("\xc2\xa0", "\\xc2\\xa0"));
    CHECK(escapes_to("\xc2\xa1", "\xc2\xa1"));
    /* Raw 8-bit C1 bytes are invalid UTF-8 and escaped as such. */
    CHECK(escapes_to("\x9b"
                     "31m",
                     "\\x9b31m"));
}

TEST(bidi_and_invisible_formatting_is_escaped)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"\xe2\x80\xae", "\\xe2\\x80\\xae"}, /* U+202E RIGHT-TO-LEFT OVERRIDE */
        {"\xe2\x80\xaa", "\\xe2\\x80\\xaa"}, /* U+202A LRE */
        {"\xe2\x80\xac", "\\xe2\\x80\\xac"}, /* U+202C PDF */
        {"\xe2\x81\xa6", "\\xe2\\x81\\xa6"}, /* U+2066 LRI */
        {"\xe2\x81\xa9", "\\xe2\\x81\\xa9"}, /* U+2069 PDI */
        {"\xe2\x80\x8e", "\\xe2\\x80\\x8e"}, /* U+200E LRM */
        {"\xe2\x80\x8f", "\\xe2\\x80\\x8f"}, /* U+200F RLM */
        {"\xd8\x9c", "\\xd8\\x9c"},          /* U+061C ARABIC LETTER MARK */
        {"\xe2\x80\x8b", "\\xe2\\x80\\x8b"}, /* U+200B ZERO WIDTH SPACE */
        {"\xe2\x80\x8c", "\\xe2\\x80\\x8c"}, /* U+200C ZWNJ */
        {"\xe2\x80\x8d", "\\xe2\\x80\\x8d"}, /* U+200D ZWJ */
        {"\xe2\x81\xa0", "\\xe2\\x81\\xa0"}, /* U+2060 WORD JOINER */
        {"\xe2\x81\xaf", "\\xe2\\x81\\xaf"}, /* U+206F NOMINAL DIGIT SHAPES */
        {"\xe1\xa0\x8e", "\\xe1\\xa0\\x8e"}, /* U+180E MONGOLIAN VOWEL SEPARATOR */
        {"\xef\xbb\xbf", "\\xef\\xbb\\xbf"}, /* U+FEFF BOM */
        {"\xe2\x80\xa8", "\\xe2\\x80\\xa8"}, /* U+2028 LINE SEPARATOR */
        {"\xe2\x80\xa9", "\\xe2\\x80\\xa9"}, /* U+2029 PARAGRAPH SEPARATOR */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK(escapes_to(cases[i].in, cases[i].want));
    /* The neighbours are ordinary punctuation. */
    CHECK(
        escapes_to("\xe2\x80\x94\xe2\x80\xb0\xe2\x81\xb0", "\xe2\x80\x94\xe2\x80\xb0\xe2\x81\xb0"));
}

TEST(lookalikes_and_other_invisibles_are_escaped)
{
    /* what names refuse as confusable or invisible shows as bytes too */
    CHECK(escapes_to("src\xe2\x88\x95x", "src\\xe2\\x88\\x95x"));    /* DIVISION SLASH */
    CHECK(escapes_to("\xef\xbc\x8egit", "\\xef\\xbc\\x8egit"));      /* FULLWIDTH FULL STOP */
    CHECK(escapes_to("\xe2\x80\xa4", "\\xe2\\x80\\xa4"));            /* ONE DOT LEADER */
    CHECK(escapes_to("a\xc2\xad", "a\\xc2\\xad"));                   /* SOFT HYPHEN */
    CHECK(escapes_to("a\xe2\x80\xaf", "a\\xe2\\x80\\xaf"));          /* NARROW NBSP */
    CHECK(escapes_to("a\xf3\xa0\x80\x81", "a\\xf3\\xa0\\x80\\x81")); /* LANGUAGE TAG */
}

TEST(invalid_utf8_is_escaped_byte_by_byte)
{
    CHECK(escapes_to("a\xff"
                     "b",
                     "a\\xffb"));
    CHECK(escapes_to("\xc3", "\\xc3"));                            /* truncated */
    CHECK(escapes_to("\xc3(", "\\xc3("));                          /* bad continuation */
    CHECK(escapes_to("\xc0\xaf", "\\xc0\\xaf"));                   /* overlong '/' */
    CHECK(escapes_to("\xe0\x80\xaf", "\\xe0\\x80\\xaf"));          /* overlong */
    CHECK(escapes_to("\xed\xa0\x80", "\\xed\\xa0\\x80"));          /* surrogate */
    CHECK(escapes_to("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80")); /* above U+10FFFF */
    CHECK(escapes_to("\x80\xbf", "\\x80\\xbf"));                   /* lone continuations */
    /* A truncated sequence followed by a valid one: only the bad bytes. */
    CHECK(escapes_to("\xe2\x82\xc3\xa9", "\\xe2\\x82\xc3\xa9"));
}

TEST(backslash_is_doubled)
{
    /* So that an escaped byte cannot be forged by the input. */
    CHECK(escapes_to("\\", "\\\\"));
    CHECK(escapes_to("\\x1b", "\\\\x1b"));
    CHECK(escapes_to("a\\\x1b", "a\\\\\\x1b"));
}

TEST(multibyte_letters_pass)
{
    CHECK(escapes_to("caf\xc3\xa9", "caf\xc3\xa9"));
    CHECK(escapes_to("\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"));
    CHECK(escapes_to("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"));
    CHECK(escapes_to("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf")); /* U+10FFFF */
    CHECK(escapes_to("\xd0\x9f\xd1\x80\xd0\xb8", "\xd0\x9f\xd1\x80\xd0\xb8"));
}

/* Nothing a terminal acts on survives, for every code point. */
TEST(no_code_point_leaves_a_control)
{
    for (unsigned cp = 0; cp <= 0x10ffff; cp++) {
        unsigned char s[4];
        size_t n;
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue;
        if (cp < 0x80) {
            s[0] = (unsigned char)cp;
            n = 1;
        } else if (cp < 0x800) {
            s[0] = (unsigned char)(0xc0 | (cp >> 6));
            s[1] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 2;
        } else if (cp < 0x10000) {
            s[0] = (unsigned char)(0xe0 | (cp >> 12));
            s[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            s[2] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 3;
        } else {
            s[0] = (unsigned char)(0xf0 | (cp >> 18));
            s[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
            s[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            s[3] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 4;
        }
        esc((const char *)s, n);
        bool controlish = rr_cp_class(cp) != RR_CP_OK;
        bool as_is = strlen(out) == n && memcmp(out, s, n) == 0;
        if (cp == '\\')
            as_is = strcmp(out, "\\\\") == 0;
        if (!CHECK(controlish ? !as_is && out[0] == '\\' : as_is)) {
            tap_note("U+%04X -> %s", cp, out);
            return;
        }
        for (const char *c = out; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                CHECK(!"control byte in the output");
                return;
            }
    }
}

/* Every cut of a text made of pieces (a valid sequence, or one byte of an
 * invalid one, is a piece): the output fits, ends with the
 * marker when cut, and what precedes the marker is the escaping of a whole
 * prefix of the pieces (no sequence or \xHH cut in half). */
static bool cuts_are_clean(const char *const *pieces, size_t n_pieces)
{
    char in[256] = "", *full, buf[256];
    size_t bounds[64], len = 0;

    for (size_t i = 0; i < n_pieces; i++) {
        bounds[i] = len;
        len += strlen(pieces[i]);
        strcat(in, pieces[i]);
    }
    bounds[n_pieces] = len;
    full = rr_escape_dup(in, len);
    if (full == NULL)
        return false;
    for (size_t outlen = 1; outlen <= strlen(full) + 1; outlen++) {
        size_t olen;
        bool whole = false;
        memset(buf, 'Z', sizeof(buf));
        rr_escape(in, len, buf, outlen);
        olen = strnlen(buf, outlen);
        if (olen >= outlen || buf[outlen] != 'Z') {
            tap_note("outlen %zu: overran or unterminated", outlen);
            free(full);
            return false;
        }
        if (strcmp(buf, full) == 0)
            continue;
        if (outlen >= sizeof(MARK)) {
            if (olen < strlen(MARK) || strcmp(buf + olen - strlen(MARK), MARK) != 0) {
                tap_note("outlen %zu: \"%s\" has no marker", outlen, buf);
                free(full);
                return false;
            }
            buf[olen - strlen(MARK)] = '\0';
        }
        for (size_t k = 0; k <= n_pieces && !whole; k++) {
            char *pre = rr_escape_dup(in, bounds[k]);
            whole = pre != NULL && strcmp(pre, buf) == 0;
            free(pre);
        }
        if (!whole || !json_utf8_valid(buf, strlen(buf))) {
            tap_note("outlen %zu: \"%s\" is not a whole prefix", outlen, buf);
            free(full);
            return false;
        }
    }
    free(full);
    return true;
}

TEST(truncation_marks_and_never_cuts_a_sequence)
{
    static const char *const letters[] = {"\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "a",
                                          "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "b",
                                          "\xc3\xa9", "\xe6\x97\xa5", "\xf0\x9f\x98\x80", "c"};
    static const char *const escapes[] = {"\x1b",     "\xff", "\\",   "\xe2\x80\xae", "x",  "\x1b",
                                          "\xc3\xa9", "\xed", "\xa0", "\x80",         "\n", "\\",
                                          "\x1b",     "y"};

    CHECK(cuts_are_clean(letters, sizeof(letters) / sizeof(letters[0])));
    CHECK(cuts_are_clean(escapes, sizeof(escapes) / sizeof(escapes[0])));
}

TEST(truncation_example)
{
    char buf[20];

    rr_escape("abcdefghijklmnopqrstuvwxyz", 26, buf, sizeof(buf));
    CHECK(strcmp(buf, "abcde" MARK) == 0);
    /* Fits exactly: no marker. */
    rr_escape("abcdefghijklmnopqrs", 19, buf, sizeof(buf));
    CHECK(strcmp(buf, "abcdefghijklmnopqrs") == 0);
    /* Too small for the marker: an empty but terminated string, never
     * bytes that were not written. */
    memset(buf, 0x1b, sizeof(buf));
    rr_escape("abcdefghijklmnopqrstuvwxyz", 26, buf, 8);
    CHECK(strlen(buf) < 8 && strchr(buf, 0x1b) == NULL);
    memset(buf, 0x1b, sizeof(buf));
    rr_escape("abc", 3, buf, 1);
    CHECK(buf[0] == '\0');
    buf[0] = 'q';
    rr_escape("abc", 3, buf, 0);
    CHECK(buf[0] == 'q');
}

TEST(escape_size_and_dup_fit_the_worst_case)
{
    char all[256];
    char *d;

    for (int i = 0; i < 256; i++)
        all[i] = (char)(255 - i);
    CHECK(rr_escape_size(0) == 1 && rr_escape_size(10) == 41);
    d = rr_escape_dup(all, sizeof(all));
    CHECK(d != NULL && strstr(d, MARK) == NULL && strlen(d) < rr_escape_size(sizeof(all)));
    CHECK(d != NULL && strncmp(d, "\\xff\\xfe", 8) == 0);
    free(d);
    d = rr_escape_dup("\x1b\x1b\x1b", 3);
    CHECK(d != NULL && strcmp(d, "\\x1b\\x1b\\x1b") == 0 && strlen(d) + 1 == rr_escape_size(3));
    free(d);
}

/* GitHub's runner acts on "##[cmd]" anywhere in a line and "::cmd::" at its
 * start, Azure Pipelines and TeamCity on "##vso[...]" and "##teamcity[...]"
 * anywhere: none survives, and the rest of the text is kept. */
TEST(ci_log_commands_are_defused)
{
    CHECK(escapes_to("##[add-mask]secret", "\\x23#[add-mask]secret"));
    CHECK(escapes_to("see ##[error]x and ###[warning]y", "see \\x23#[error]x and #\\x23#[warning]y"));
    CHECK(escapes_to("::warning::x", "\\x3a:warning::x"));
    /* Azure Pipelines and TeamCity act on theirs anywhere in a line */
    CHECK(escapes_to("ok ##vso[task.setvariable variable=V]accept",
                     "ok \\x23#vso[task.setvariable variable=V]accept"));
    CHECK(escapes_to("##vso[task.complete result=Succeeded]", "\\x23#vso[task.complete result=Succeeded]"));
    CHECK(escapes_to("x ##teamcity[buildStatus status='SUCCESS']",
                     "x \\x23#teamcity[buildStatus status='SUCCESS']"));
    CHECK(escapes_to("##VSO[task.setvariable]", "\\x23#VSO[task.setvariable]"));
    /* a heading or a run of '#' is no command */
    CHECK(escapes_to("## Notes", "## Notes"));
    CHECK(escapes_to("C## 3", "C## 3"));
    CHECK(escapes_to("   ::stop-commands::t", "   \\x3a:stop-commands::t"));
    /* not at the start: ordinary text (C++ names) stays readable */
    CHECK(escapes_to("std::vector", "std::vector"));
    CHECK(escapes_to("# [x] ## [y] #[z]", "# [x] ## [y] #[z]"));
    /* and the escaped text holds no command, whatever the cut */
    for (size_t n = 0; n < 40; n++) {
        char small[64];
        rr_escape("####[[##[::a::]##[", 18, small, n);
        CHECK(strstr(small, "##[") == NULL);
        rr_escape("###vso[a]##teamcity[b]", 22, small, n);
        CHECK(strstr(small, "##vso[") == NULL && strstr(small, "##teamcity[") == NULL);
    }
}
