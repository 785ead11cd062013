/* Following a worktree's gitfile (writeback/git/gitworktree.c): on a layout
 * made here as `git worktree add` makes one (the main .git with
 * worktrees/wt/{commondir,gitdir,index} and info/exclude, the checkout's
 * .git a gitfile), followed when it provably is this checkout's, and every
 * other shape said and not followed. Ownership by another uid needs root:
 * integration/writeback_git.bats pins that. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/git/gitworktree.h"

struct wt {
    char root[64];
    int lower; /* the worktree checkout */
};

static void put(const struct wt *w, const char *rel, const char *text)
{
    char p[PATH_MAX];
    FILE *f;

    snprintf(p, sizeof(p), "%s/%s", w->root, rel);
    if ((f = fopen(p, "w")) == NULL)
        abort();
    fputs(text, f);
    fclose(f);
}

static void dir(const struct wt *w, const char *rel)
{
    char p[PATH_MAX];

    snprintf(p, sizeof(p), "%s/%s", w->root, rel);
    if (mkdir(p, 0755) < 0)
        abort();
}

/* root/main/.git (the common directory) and root/wt (the checkout). */
static void wt_init(struct wt *w)
{
    static const char *const dirs[] = {"main", "main/.git", "main/.git/objects",
                                       "main/.git/refs", "main/.git/info", "main/.git/worktrees",
                                       "main/.git/worktrees/wt", "wt"};
    char text[PATH_MAX + 16], p[PATH_MAX];

    snprintf(w->root, sizeof(w->root), "/tmp/wbwt.XXXXXX");
    if (mkdtemp(w->root) == NULL)
        abort();
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        dir(w, dirs[i]);
    put(w, "main/.git/HEAD", "ref: refs/heads/main\n");
    put(w, "main/.git/info/exclude", ".cache/\n");
    put(w, "main/.git/worktrees/wt/commondir", "../..\n");
    put(w, "main/.git/worktrees/wt/index", "DIRC");
    snprintf(text, sizeof(text), "%s/wt/.git\n", w->root);
    put(w, "main/.git/worktrees/wt/gitdir", text);
    snprintf(text, sizeof(text), "gitdir: %s/main/.git/worktrees/wt\n", w->root);
    put(w, "wt/.git", text);
    snprintf(p, sizeof(p), "%s/wt", w->root);
    if ((w->lower = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
        abort();
}

static void wt_free(struct wt *w)
{
    char cmd[128];

    close(w->lower);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", w->root);
    if (system(cmd) != 0)
        tap_note("could not remove %s", w->root);
}

/* 1 when followed; why[] otherwise. */
static int follow(const struct wt *w, struct wb_gitwt *out, char *why, size_t len)
{
    struct rr_error err;
    int k = wb_gitwt_open(w->lower, out, why, len, &err);

    if (k == 0)
        tap_note("not followed: %s", why);
    return k;
}

TEST(a_worktree_gitfile_is_followed_to_its_index_and_the_common_exclude)
{
    struct wt w;
    struct wb_gitwt g;
    char why[300], p[PATH_MAX];

    wt_init(&w);
    CHECK(follow(&w, &g, why, sizeof(why)) == 1);
    CHECK(g.exclude != NULL && strcmp(g.exclude, ".cache/\n") == 0);
    CHECK(g.index_fd >= 0 && !g.exclude_over_cap);
    wb_gitwt_free(&g);
    /* relative paths, as `git worktree add --relative-paths` writes them:
     * the gitfile's relative to the checkout, gitdir's to its directory */
    put(&w, "wt/.git", "gitdir: ../main/.git/worktrees/wt\r\n");
    put(&w, "main/.git/worktrees/wt/gitdir", "../../../../wt/.git\n");
    CHECK(follow(&w, &g, why, sizeof(why)) == 1);
    wb_gitwt_free(&g);
    /* no index, no exclude: followed, nothing to keep */
    snprintf(p, sizeof(p), "%s/main/.git/info/exclude", w.root);
    CHECK(unlink(p) == 0);
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/wt/index", w.root);
    CHECK(unlink(p) == 0);
    CHECK(follow(&w, &g, why, sizeof(why)) == 1);
    CHECK(g.exclude == NULL && g.index_fd < 0);
    wb_gitwt_free(&g);
    wt_free(&w);
}

/* Each shape that is not provably this checkout's worktree, and its reason. */
static void refused(struct wt *w, const char *expect)
{
    struct wb_gitwt g;
    char why[300];

    CHECK(follow(w, &g, why, sizeof(why)) == 0);
    CHECK(strstr(why, expect) != NULL);
    if (strstr(why, expect) == NULL)
        tap_note("expected: %s", expect);
    CHECK(g.exclude == NULL && g.index_fd < 0);
}

TEST(a_worktree_gitfile_is_not_followed_unless_provably_this_checkouts)
{
    char text[PATH_MAX + 16], p[PATH_MAX], q[PATH_MAX];
    struct wt w;

    wt_init(&w);
    /* a back-link to another checkout (a copy of the worktree) */
    dir(&w, "other");
    put(&w, "other/.git", "x");
    snprintf(text, sizeof(text), "%s/other/.git\n", w.root);
    put(&w, "main/.git/worktrees/wt/gitdir", text);
    refused(&w, "its back-link (gitdir) names another .git than the checkout's");
    snprintf(text, sizeof(text), "%s/wt/.git\n", w.root);
    put(&w, "main/.git/worktrees/wt/gitdir", text);
    /* the same directory through a symlink */
    snprintf(p, sizeof(p), "%s/main", w.root);
    snprintf(q, sizeof(q), "%s/link", w.root);
    CHECK(symlink(p, q) == 0);
    snprintf(text, sizeof(text), "gitdir: %s/link/.git/worktrees/wt\n", w.root);
    put(&w, "wt/.git", text);
    refused(&w, "the git directory it names: a symlink on the way");
    /* a control byte, an empty path, a gitfile over 4 KiB, no prefix */
    snprintf(text, sizeof(text), "gitdir: %s/main/.git/worktrees/wt\n\x1b[2J", w.root);
    put(&w, "wt/.git", text);
    refused(&w, "the checkout's .git holds a control byte in the path");
    put(&w, "wt/.git", "gitdir: \n");
    refused(&w, "the checkout's .git holds an empty path");
    memset(text, 'a', 4100);
    text[4100] = '\0';
    put(&w, "wt/.git", text);
    refused(&w, "the checkout's .git: over 4096 bytes");
    put(&w, "wt/.git", "ref: x\n");
    refused(&w, "does not start with \"gitdir: \"");
    /* a git directory that is not a worktree's (a submodule's), or whose
     * common directory is no git directory */
    snprintf(text, sizeof(text), "gitdir: %s/main/.git\n", w.root);
    put(&w, "wt/.git", text);
    refused(&w, "is not a worktree's (no commondir file)");
    snprintf(text, sizeof(text), "gitdir: %s/main/.git/worktrees/wt\n", w.root);
    put(&w, "wt/.git", text);
    put(&w, "main/.git/worktrees/wt/commondir", "..\n");
    refused(&w, "the common git directory holds no HEAD, objects/ and refs/");
    put(&w, "main/.git/worktrees/wt/commondir", "../..\n");
    /* a git directory anyone may write */
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/wt", w.root);
    CHECK(chmod(p, 0777) == 0);
    refused(&w, "the git directory it names may be written by anyone");
    CHECK(chmod(p, 0755) == 0);
    /* an index that is not a regular file */
    snprintf(p, sizeof(p), "%s/main/.git/worktrees/wt/index", w.root);
    CHECK(unlink(p) == 0 && mkdir(p, 0755) == 0);
    refused(&w, "its index is not a regular file");
    wt_free(&w);
}

TEST(gitdir_path_problems)
{
    CHECK(wb_gitwt_path_problem("/a/b", 4) == NULL);
    CHECK(wb_gitwt_path_problem("../x", 4) == NULL);
    CHECK(wb_gitwt_path_problem("", 0) != NULL);
    CHECK(wb_gitwt_path_problem("a\nb", 3) != NULL);
    CHECK(wb_gitwt_path_problem("a\0b", 3) != NULL);
    CHECK(wb_gitwt_path_problem("a\x7f", 2) != NULL);
}
