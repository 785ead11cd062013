/* common/gitwt.c: the pure parts (lexical paths, path text checks) and the
 * resolver on worktree shapes made in a scratch directory (no root). */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/gitwt.h"
#include "tests/tap.h"

static bool norm_is(const char *base, const char *path, const char *want)
{
    char out[PATH_MAX];

    return rr_path_join_norm(base, path, out, sizeof(out)) == 0 && strcmp(out, want) == 0;
}

TEST(join_norm_resolves_lexically)
{
    CHECK(norm_is("/workspace", "../main/.git/worktrees/pr", "/main/.git/worktrees/pr"));
    CHECK(norm_is("/workspace", "/srv/repo/.git/worktrees/pr/", "/srv/repo/.git/worktrees/pr"));
    CHECK(norm_is("/a/.git/worktrees/pr", "../..", "/a/.git"));
    CHECK(norm_is("/a", "./b//c/./../d", "/a/b/d"));
    CHECK(norm_is("/", "../../..", "/"));
    CHECK(norm_is("/x", "/", "/"));
    char small[8];
    CHECK(rr_path_join_norm("/", "/abcdefgh", small, sizeof(small)) < 0);
    CHECK(rr_path_join_norm("/", "/abcdef", small, sizeof(small)) == 0 &&
          strcmp(small, "/abcdef") == 0);
}

TEST(path_problems)
{
    CHECK(rr_gitwt_path_problem("", 0) != NULL);
    CHECK(rr_gitwt_path_problem("a\nb", 3) != NULL);
    CHECK(rr_gitwt_path_problem("a\x7f", 2) != NULL);
    CHECK(rr_gitwt_path_problem("../..", 5) == NULL);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* A worktree as git makes one: main/.git/{HEAD,objects,refs,worktrees/pr},
 * pr/.git naming it, the back-link naming pr/.git. */
static void make(const char *d)
{
    char p[PATH_MAX], t[PATH_MAX + 16];
    const char *dirs[] = {"main", "main/.git", "main/.git/objects", "main/.git/refs",
                          "main/.git/worktrees", "main/.git/worktrees/pr", "pr"};

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", d, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof(p), "%s/main/.git/HEAD", d);
    put(p, "ref: refs/heads/main\n");
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/pr/commondir", d);
    put(p, "../..\n");
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/pr/gitdir", d);
    snprintf(t, sizeof(t), "%s/pr/.git\n", d);
    put(p, t);
    snprintf(p, sizeof(p), "%s/pr/.git", d);
    snprintf(t, sizeof(t), "gitdir: %s/main/.git/worktrees/pr\n", d);
    put(p, t);
}

static int open_pr(const char *d, struct rr_gitwt *w, char *why, size_t wl)
{
    char p[PATH_MAX];
    struct rr_error err;
    int fd, k;

    snprintf(p, sizeof(p), "%s/pr", d);
    fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    k = rr_gitwt_open(fd, w, why, wl, &err);
    close(fd);
    return k;
}

TEST(resolver_follows_and_refuses)
{
    char d[] = "/tmp/test_gitwt.XXXXXX", p[PATH_MAX], q[PATH_MAX], why[512];
    struct rr_gitwt w;

    if (mkdtemp(d) == NULL) {
        CHECK(!"mkdtemp");
        return;
    }
    make(d);
    CHECK(open_pr(d, &w, why, sizeof(why)) == 1);
    CHECK(strcmp(w.name, "pr") == 0 && strcmp(w.commondir_text, "../..") == 0);
    rr_gitwt_close(&w);
    /* the back-link names a copy of the .git file */
    snprintf(p, sizeof(p), "%s/pr/.git", d);
    snprintf(q, sizeof(q), "%s/copy", d);
    {
        char cmd[3 * PATH_MAX];
        snprintf(cmd, sizeof(cmd), "cp '%s' '%s' && echo '%s' > '%s/main/.git/worktrees/pr/gitdir'",
                 p, q, q, d);
        CHECK(system(cmd) == 0);
    }
    CHECK(open_pr(d, &w, why, sizeof(why)) == 0);
    CHECK(strstr(why, "names another .git") != NULL);
    make(d);
    /* through a symlink */
    snprintf(q, sizeof(q), "%s/link", d);
    snprintf(p, sizeof(p), "%s/main", d);
    CHECK(symlink(p, q) == 0);
    snprintf(p, sizeof(p), "%s/pr/.git", d);
    snprintf(q, sizeof(q), "gitdir: %s/link/.git/worktrees/pr\n", d);
    put(p, q);
    CHECK(open_pr(d, &w, why, sizeof(why)) == 0);
    CHECK(strstr(why, "a symlink on the way") != NULL);
    make(d);
    /* a directory anyone may write */
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/pr", d);
    CHECK(chmod(p, 0777) == 0);
    CHECK(open_pr(d, &w, why, sizeof(why)) == 0);
    CHECK(strstr(why, "may be written by anyone") != NULL);
    CHECK(chmod(p, 0755) == 0);
    /* no commondir: not a worktree's */
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/pr/commondir", d);
    CHECK(unlink(p) == 0);
    CHECK(open_pr(d, &w, why, sizeof(why)) == 0);
    CHECK(strstr(why, "no commondir") != NULL);
    {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d);
        CHECK(system(cmd) == 0);
    }
}
