#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "tests/tap.h"
#include "writeback/names.h"

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
