#include <string.h>

#include "tests/tap.h"
#include "writeback/glob.h"

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
