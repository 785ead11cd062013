#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "tests/tap.h"
#include "writeback/names/names.h"

#define S(x) x, sizeof(x) - 1

static bool same_key(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t ka, kb;
    char *x = wb_fold_key(a, alen, &ka), *y = wb_fold_key(b, blen, &kb);
    bool same = x && y && ka == kb && memcmp(x, y, ka) == 0;

    free(x);
    free(y);
    return same;
}

TEST(name_refuses_controls_newlines_and_bad_utf8)
{
    CHECK(wb_name_problem(S("ok-name.c"), 255) == NULL);
    CHECK(wb_name_problem(S("caf\xc3\xa9"), 255) == NULL);
    CHECK(wb_name_problem(S("a\nb"), 255) != NULL);
    CHECK(wb_name_problem(S("\x1b]0;pwned\x07"), 255) != NULL);
    CHECK(wb_name_problem(S("del\x7f"), 255) != NULL);
    CHECK(wb_name_problem(S("c1\xc2\x85"), 255) != NULL);      /* NEL */
    CHECK(wb_name_problem(S("ls\xe2\x80\xa8x"), 255) != NULL); /* U+2028 */
    CHECK(wb_name_problem(S("bad\xff"), 255) != NULL);
    CHECK(wb_name_problem(S("over\xc0\xaf"), 255) != NULL); /* overlong "/" */
    CHECK(wb_name_problem(S(".."), 255) != NULL);
    CHECK(wb_name_problem(S("."), 255) != NULL);
    CHECK(wb_name_problem(S(""), 255) != NULL);
}

TEST(name_refuses_trailing_dot_or_space)
{
    CHECK(wb_name_problem(S("run.sh."), 255) != NULL);
    CHECK(wb_name_problem(S("run.sh "), 255) != NULL);
    CHECK(wb_name_problem(S("..."), 255) != NULL);
    CHECK(wb_name_problem(S(".hidden"), 255) == NULL);
    CHECK(wb_name_problem(S("a. b"), 255) == NULL);
    CHECK(wb_name_problem(S("12:00.log"), 255) == NULL); /* ':' is keyed, not refused */
}

TEST(backslash_refused_in_names_and_targets)
{
    struct rr_writeback_policy pol = {
        .max_depth = 64, .max_name_bytes = 255, .max_path_bytes = 4096};
    const char *why;

    CHECK((why = wb_name_problem(S(".git\\hooks\\post-checkout"), 255)) != NULL &&
          strcmp(wb_problem_code(why, "path"), "backslash") == 0);
    CHECK((why = wb_path_problem(S("sub\\.GIT\\config"), &pol)) != NULL &&
          strcmp(wb_problem_code(why, "path"), "backslash") == 0);
    CHECK(wb_path_problem(S("x\\..\\..\\y"), &pol) != NULL);
    CHECK((why = wb_target_problem(S("..\\..\\..\\Windows\\System32"), &pol)) != NULL &&
          strcmp(wb_problem_code(why, "symlink"), "backslash") == 0);
    CHECK(wb_target_problem(S(".git\\hooks"), &pol) != NULL);
    CHECK(wb_target_problem(S("../a/b"), &pol) == NULL);
    CHECK(strcmp(wb_problem_code(wb_name_problem(S("a\nb"), 255), "path"), "path") == 0);
}

TEST(name_length_cap)
{
    char name[300];

    memset(name, 'a', sizeof(name));
    CHECK(wb_name_problem(name, 255, 255) == NULL);
    CHECK(wb_name_problem(name, 256, 255) != NULL);
}

TEST(path_caps_depth_and_length)
{
    struct rr_writeback_policy pol = {.max_depth = 3, .max_name_bytes = 255, .max_path_bytes = 10};

    CHECK(wb_path_problem(S("a/b/c"), &pol) == NULL);
    CHECK(wb_path_problem(S("a/b/c/d"), &pol) != NULL);
    CHECK(wb_path_problem(S("abcdefghijk"), &pol) != NULL);
    CHECK(wb_path_problem(S("a//b"), &pol) != NULL);
    CHECK(wb_path_problem(S("/a"), &pol) != NULL);
    CHECK(wb_path_problem(S("a/"), &pol) != NULL);
    CHECK(wb_path_problem(S("a/../b"), &pol) != NULL);
}

TEST(dotgit_spellings)
{
    CHECK(wb_name_is_dotgit(S(".git")));
    CHECK(wb_name_is_dotgit(S(".GiT")));
    CHECK(wb_name_is_dotgit(S(".git.")));
    CHECK(wb_name_is_dotgit(S(".git . ")));
    CHECK(wb_name_is_dotgit(S("GIT~1")));
    CHECK(wb_name_is_dotgit(S(".git::$INDEX_ALLOCATION")));
    CHECK(wb_name_is_dotgit(S(".g\xe2\x80\x8cit"))); /* ZWNJ, HFS+ ignores it */
    CHECK(!wb_name_is_dotgit(S(".github")));
    CHECK(!wb_name_is_dotgit(S(".gitignore")));
    CHECK(!wb_name_is_dotgit(S("git")));
    CHECK(wb_path_has_dotgit(S("sub/.git/config")));
    CHECK(wb_path_has_dotgit(S("sub/.GIT")));
    CHECK(!wb_path_has_dotgit(S("sub/.gitmodules")));
}

static bool canon_is(const char *name, size_t len, const char *want)
{
    char buf[64];

    return wb_name_canon(name, len, buf, sizeof(buf)) && strcmp(buf, want) == 0;
}

TEST(canon_as_macos_and_windows_resolve_names)
{
    char dots[300];

    CHECK(canon_is(S(".GitModules"), ".gitmodules"));
    CHECK(canon_is(S(".gitmodules. . "), ".gitmodules"));
    CHECK(canon_is(S(".gitmodules::$DATA"), ".gitmodules"));
    CHECK(canon_is(S(".git\xe2\x80\x8emodules"), ".gitmodules")); /* LRM, HFS+ ignores it */
    CHECK(canon_is(S("GitMod~3"), ".gitmodules"));
    CHECK(canon_is(S("gi7eba~1"), ".gitmodules"));
    CHECK(canon_is(S("g~123456"), ".gitmodules")); /* git's fall-back form, shortest prefix */
    CHECK(canon_is(S("gi7d29~1"), ".gitattributes"));
    CHECK(canon_is(S("gitign~1"), ".gitignore"));
    CHECK(canon_is(S("Git~1"), ".git"));
    CHECK(canon_is(S("caf\xc3\xa9.TXT"), "caf\xc3\xa9.txt")); /* other bytes kept */
    CHECK(canon_is(S("a.b"), "a.b"));
    CHECK(canon_is(S("gitmod~5"), "gitmod~5"));
    CHECK(canon_is(S("gi7eba~0"), "gi7eba~0"));
    /* a trailing run longer than the buffer cannot hide the name */
    memset(dots, '.', sizeof(dots));
    memcpy(dots, ".git", 4);
    CHECK(wb_name_is_dotgit(dots, sizeof(dots)));
    dots[sizeof(dots) - 1] = 'x'; /* but a long name is no .git */
    CHECK(!wb_name_is_dotgit(dots, sizeof(dots)));
}

TEST(fold_case_and_normalisation_collide)
{
    CHECK(same_key(S("README"), S("readme")));
    CHECK(same_key(S("caf\xc3\xa9"), S("cafe\xcc\x81")));                  /* NFC vs NFD */
    CHECK(same_key(S("CAF\xc3\x89"), S("cafe\xcc\x81")));                  /* and case */
    CHECK(same_key(S("\xe1\xba\xa0\xcc\x81"), S("\xe1\xba\xa1\xcc\x81"))); /* Vietnamese */
    CHECK(same_key(S("\xce\x86"), S("\xce\xb1\xcc\x81")));                 /* Greek tonos */
    CHECK(same_key(S("\xd0\x81"), S("\xd0\xb5\xcc\x88")));                 /* Cyrillic YO */
    CHECK(same_key(S("\xe2\x84\xab"), S("\xc3\xa5")));                     /* Angstrom sign */
    CHECK(same_key(S("\xe2\x84\xaa"), S("k")));                            /* Kelvin sign */
    CHECK(same_key(S("\xcf\x82"), S("\xce\xa3")));                         /* final sigma */
    CHECK(same_key(S("a\xe2\x80\x8d"
                     "b"),
                   S("ab"))); /* ZWJ ignored */
    /* canonical order of marks: dot below (220) sorts before acute (230) */
    CHECK(same_key(S("e\xcc\x81\xcc\xa3"), S("e\xcc\xa3\xcc\x81")));
    CHECK(same_key(S("\xc2\xb5"), S("\xce\xbc"))); /* MICRO SIGN, Greek mu */
    CHECK(same_key(S("\xc2\xb5"), S("\xce\x9c"))); /* and capital mu */
    CHECK(same_key(S("run.sh:x"), S("run.sh")));   /* NTFS stream */
    CHECK(same_key(S("run.sh::$DATA"), S("RUN.SH")));
    CHECK(same_key(S("run.sh. :x"), S("run.sh"))); /* trailing dots before a stream */
    CHECK(same_key(S("run.sh.\xe2\x80\x8c"), S("run.sh")));
    CHECK(!same_key(S("12:00"), S("12.00")));
    CHECK(!same_key(S("a"), S("b")));
    CHECK(!same_key(S("e"), S("\xc3\xa9")));
}

TEST(fold_key_rejects_invalid_utf8)
{
    size_t k;

    CHECK(wb_fold_key(S("a\xff"), &k) == NULL);
}

static const char *code_of(const char *name, size_t len)
{
    const char *why = wb_name_problem(name, len, 255);

    return why ? wb_problem_code(why, "path") : "ok";
}

static const char *target_code(const char *t, size_t len)
{
    struct rr_writeback_policy pol = {
        .max_depth = 64, .max_name_bytes = 255, .max_path_bytes = 4096};
    const char *why = wb_target_problem(t, len, &pol);

    return why ? wb_problem_code(why, "symlink") : "ok";
}

#define CODE(name, want) CHECK(strcmp(code_of(S(name)), want) == 0)

TEST(names_that_fool_a_reader_each_with_its_class)
{
    /* Trojan Source: embeddings, overrides, isolates, marks */
    CODE("a\xe2\x80\xaa", "bidi"); /* U+202A LRE */
    CODE("a\xe2\x80\xae"
         "cod.exe",
         "bidi");                  /* U+202E RLO */
    CODE("\xe2\x81\xa6x", "bidi"); /* U+2066 LRI */
    CODE("\xe2\x81\xa9x", "bidi"); /* U+2069 PDI */
    CODE("x\xe2\x80\x8e", "bidi"); /* U+200E LRM */
    CODE("x\xe2\x80\x8f", "bidi"); /* U+200F RLM */
    CODE("x\xd8\x9c", "bidi");     /* U+061C ALM */
    /* invisible */
    CODE("a\xe2\x80\x8b"
         "b",
         "invisible"); /* U+200B ZWSP */
    CODE("a\xe2\x80\x8c"
         "b",
         "invisible"); /* U+200C ZWNJ */
    CODE("a\xe2\x80\x8d"
         "b",
         "invisible"); /* U+200D ZWJ */
    CODE("a\xe2\x81\xa0"
         "b",
         "invisible"); /* U+2060 WORD JOINER */
    CODE("a\xe2\x81\xa4"
         "b",
         "invisible"); /* U+2064 INVISIBLE PLUS */
    CODE("\xef\xbb\xbf"
         "a",
         "invisible"); /* U+FEFF BOM */
    CODE("a\xc2\xad"
         "b",
         "invisible"); /* U+00AD SOFT HYPHEN */
    CODE("a\xcd\x8f"
         "b",
         "invisible");                      /* U+034F CGJ */
    CODE("a\xe3\x85\xa4", "invisible");     /* U+3164 HANGUL FILLER */
    CODE("a\xef\xb8\x8f", "invisible");     /* U+FE0F VS16 */
    CODE("a\xf3\xa0\x80\x81", "invisible"); /* U+E0001 LANGUAGE TAG */
    /* confusable separators, dots and spaces */
    CODE("a\xef\xbc\x8e"
         "b",
         "confusable");                             /* U+FF0E FULLWIDTH FULL STOP */
    CODE("\xe2\x80\xa4\xe2\x80\xa4", "confusable"); /* U+2024 ONE DOT LEADER x2 */
    CODE("\xe2\x80\xa5", "confusable");             /* U+2025 TWO DOT LEADER */
    CODE("a\xe2\x88\x95"
         "b",
         "confusable"); /* U+2215 DIVISION SLASH */
    CODE("a\xe2\x81\x84"
         "b",
         "confusable"); /* U+2044 FRACTION SLASH */
    CODE("a\xef\xbc\x8f"
         "b",
         "confusable"); /* U+FF0F FULLWIDTH SOLIDUS */
    CODE("a\xe2\xa7\xb8"
         "b",
         "confusable"); /* U+29F8 BIG SOLIDUS */
    CODE("a\xe2\x88\x96"
         "b",
         "confusable"); /* U+2216 SET MINUS */
    CODE("a\xef\xbc\xbc"
         "b",
         "confusable"); /* U+FF3C FULLWIDTH REVERSE SOLIDUS */
    CODE("a\xe2\xa7\xb5"
         "b",
         "confusable"); /* U+29F5 REVERSE SOLIDUS OPERATOR */
    CODE("a\xc2\xa0"
         "b",
         "confusable"); /* U+00A0 NO-BREAK SPACE */
    CODE("a\xe3\x80\x80"
         "b",
         "confusable"); /* U+3000 IDEOGRAPHIC SPACE */
    /* controls keep their class; text is text */
    CODE("a\x1b", "path");
    CODE("caf\xc3\xa9", "ok");
    CODE("\xe3\x83\x8e\xe3\x83\xbc\xe3\x83\x88", "ok"); /* katakana NOOTO */
    CODE("\xd7\xa9\xd7\x9c\xd7\x95\xd7\x9d", "ok");     /* Hebrew, no controls */
    CODE("a\xc2\xb7"
         "b",
         "ok"); /* MIDDLE DOT */
}

TEST(symlink_targets_that_fool_a_reader)
{
    CHECK(strcmp(target_code(S("..\xe2\x88\x95..\xe2\x88\x95"
                               "etc")),
                 "confusable") == 0);
    CHECK(strcmp(target_code(S("src/\xe2\x80\xae"
                               "txt.c")),
                 "bidi") == 0);
    CHECK(strcmp(target_code(S("src/a\xe2\x80\x8b")), "invisible") == 0);
    CHECK(strcmp(target_code(S("../src/ok.c")), "ok") == 0);
}
