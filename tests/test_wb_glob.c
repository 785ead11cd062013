#include <string.h>

#include "tests/tap.h"
#include "writeback/names/glob.h"

static bool m(const char *pat, const char *path)
{
    return wb_glob_match(pat, path, strlen(path));
}

TEST(glob_git_dir_and_contents)
{
    CHECK(m(".git/**", ".git/config"));
    CHECK(m(".git/**", ".git/hooks/pre-commit"));
    CHECK(m(".git/**", ".git"));
    CHECK(!m(".git/**", ".gitignore"));
    CHECK(!m(".git/**", "sub/.git/config")); /* anchored; nested .git has its own rule */
}

TEST(glob_without_slash_matches_any_depth)
{
    CHECK(m(".gitmodules", ".gitmodules"));
    CHECK(m(".gitattributes", "sub/dir/.gitattributes"));
    CHECK(m("*.pem", "keys/server.pem"));
    CHECK(!m("*.pem", "keys/server.pem.txt"));
    CHECK(m("secrets", "secrets/key")); /* a matched directory covers its contents */
}

TEST(glob_anchored_with_globstar)
{
    CHECK(m(".github/workflows/**", ".github/workflows/ci.yml"));
    CHECK(!m(".github/workflows/**", ".github/dependabot.yml"));
    CHECK(m("/build.sh", "build.sh"));
    CHECK(!m("/build.sh", "sub/build.sh"));
    CHECK(m("**/Makefile", "a/b/Makefile"));
    CHECK(m("**/Makefile", "Makefile"));
    CHECK(m("src/**/gen_*.c", "src/a/b/gen_x.c"));
    CHECK(m("src/**/gen_*.c", "src/gen_x.c"));
    CHECK(!m("src/*.c", "src/a/x.c"));
    CHECK(m("src/?.[ch]", "src/x.h"));
}

TEST(glob_gitmodules_in_every_spelling)
{
    static const char *const spellings[] = {
        ".GitModules",     ".gitmodules.",     ".gitmodules ", ".gitmodules::$DATA",
        ".gitmodules . .", ".gitmodules:x",    "gitmod~1",     "GITMOD~4",
        "gi7eba~1",        "gi7eb~12",         "gi7eba~9.",    ".gitmod\xe2\x80\x8cules",
        "sub/.GITMODULES", "sub/gitmod~2 . .",
    };

    for (size_t i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
        if (!CHECK(m(".gitmodules", spellings[i])))
            tap_note("not matched: %s", spellings[i]);
    CHECK(!m(".gitmodules", "gitmod~5"));
    CHECK(!m(".gitmodules", "gitmod~1x"));
    CHECK(!m(".gitmodules", "gi7ebb~1"));
    CHECK(!m(".gitmodules", ".gitmodules.txt"));
    CHECK(!m(".gitmodules", "gitmodules"));
}

TEST(glob_matches_names_as_macos_and_windows_resolve_them)
{
    CHECK(m(".github/workflows/**", ".GitHub/Workflows/x.yml"));
    CHECK(m(".github/workflows/**", ".github./workflows /x.yml"));
    CHECK(m(".git/**", "GIT~1/config"));
    CHECK(m(".gitattributes", "sub/gi7d29~1"));
    CHECK(m(".gitignore", "GITIGN~1"));
    CHECK(m("*.pem", "keys/server.PEM."));
    CHECK(m("Makefile", "MAKEFILE"));
    CHECK(!m(".github/workflows/**", ".github/dependabot.yml"));
    CHECK(!m("*.pem", "keys/server.pem.txt"));
}
