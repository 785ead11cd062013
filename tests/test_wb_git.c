/* The git-aware classification: the pure parts (packed-refs lookup, bounded
 * inflate, the summary's caps) and the walk's use of them on small plain
 * trees (the fuse-overlayfs format's .wh. files stand in for whiteouts). */
#include <git2.h>
#include <zlib.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"
#include "writeback/git/gitinfo.h"
#include "writeback/git/gitlog.h"
#include "writeback/git/gitmatch.h"

#define FUSE WB_FORMAT_FUSE_OVERLAYFS

static const char A40[] = "0123456789abcdef0123456789abcdef01234567";

TEST(packed_refs_lookup)
{
    char hex[41];
    char text[512];

    snprintf(text, sizeof(text),
             "# pack-refs with: peeled fully-peeled sorted \n"
             "%s refs/heads/mainline\n"
             "%s refs/heads/main\r\n"
             "^%s\n",
             "ffffffffffffffffffffffffffffffffffffffff", A40, A40);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/heads/main", hex) == 1);
    CHECK(strcmp(hex, A40) == 0);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/heads/mainline", hex) == 1);
    CHECK(hex[0] == 'f');
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/heads/mai", hex) == 0);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/tags/v1", hex) == 0);
    /* upper-case hex, a short id, no separating space: not git's format */
    snprintf(text, sizeof(text), "0123456789ABCDEF0123456789abcdef01234567 refs/x\n"
                                 "0123 refs/y\n"
                                 "%srefs/z\n",
             A40);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/x", hex) == 0);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/y", hex) == 0);
    CHECK(wb_git_packed_ref(text, strlen(text), "refs/z", hex) == 0);
}

TEST(inflate_is_bounded)
{
    unsigned char src[1000], z[2000];
    uLongf zlen = sizeof(z);
    struct rr_error err;
    char *out = NULL;
    size_t len;

    memset(src, 'a', sizeof(src));
    CHECK(compress(z, &zlen, src, sizeof(src)) == Z_OK);
    CHECK(wb_git_inflate(z, zlen, 999, &out, &len, &err) == 0); /* one byte over: refused */
    CHECK(out == NULL);
    CHECK(wb_git_inflate(z, zlen, 1000, &out, &len, &err) == 1);
    CHECK(len == 1000 && out != NULL && memcmp(out, src, 1000) == 0 && out[1000] == '\0');
    free(out);
    out = NULL;
    CHECK(wb_git_inflate("not zlib", 8, 1000, &out, &len, &err) == 0);
    CHECK(wb_git_inflate(z, zlen - 4, 1000, &out, &len, &err) == 0); /* truncated stream */
    CHECK(out == NULL);
}

TEST(summary_caps)
{
    struct wb_gitinfo gi = {0};
    struct rr_error err;
    char subject[400], name[32];

    memset(subject, 's', sizeof(subject));
    for (int i = 0; i < WB_COMMITS_SHOWN + 5; i++)
        CHECK(wb_gitinfo_commit(&gi, subject, sizeof(subject), NULL, 0, &err) == 0);
    CHECK(gi.n_commits == WB_COMMITS_SHOWN && gi.commits_more);
    CHECK(gi.commits[0].len == WB_SUBJECT_MAX && strlen(gi.commits[0].s) == WB_SUBJECT_MAX);
    for (int i = 0; i < WB_IGNORED_SHOWN + 3; i++) {
        snprintf(name, sizeof(name), "out%d.o", i);
        CHECK(wb_gitinfo_ignore(&gi, name, strlen(name), false, 1, &err) == 0);
    }
    CHECK(wb_gitinfo_ignore(&gi, "node_modules", 12, true, 5000, &err) == 0);
    CHECK(gi.ignored == WB_IGNORED_SHOWN + 3 + 5000);
    CHECK(gi.ignored_names == WB_IGNORED_SHOWN + 4);
    CHECK(gi.n_ignored_first == WB_IGNORED_SHOWN);
    wb_gitinfo_free(&gi);
    CHECK(gi.n_commits == 0 && gi.ignored == 0);
}

/* A lower that is a repository as git takes one, with an index tracking
 * files, written by libgit2. */
static void make_repo(struct tree *t, const char *const *tracked, size_t n)
{
    char p[4096];
    git_repository *repo;
    git_index *idx;

    tree_path(t, "lower", "", p, sizeof(p));
    git_libgit2_init();
    if (git_repository_init(&repo, p, 0) < 0 || git_repository_index(&idx, repo) < 0)
        abort();
    for (size_t i = 0; i < n; i++)
        if (git_index_add_bypath(idx, tracked[i]) < 0)
            abort();
    if (git_index_write(idx) < 0)
        abort();
    git_index_free(idx);
    git_repository_free(repo);
    git_libgit2_shutdown();
}

static bool ignored_named(const struct tree *t, const char *name)
{
    for (size_t i = 0; i < t->scan.cs.git.n_ignored_first; i++)
        if (strcmp(t->scan.cs.git.ignored_first[i].s, name) == 0)
            return true;
    return false;
}

TEST(ignored_output_left_out_tracked_kept)
{
    static const char *const tracked[] = {"keep.o", "a.c"};
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", ".gitignore", "*.o\nbuild/\n");
    tree_file(&t, "lower", "keep.o", "old\n");
    tree_file(&t, "lower", "a.c", "a\n");
    tree_file(&t, "lower", "w/.gitignore", "*.c\n");
    make_repo(&t, tracked, 2);
    tree_file(&t, "upper", "x.o", "obj\n");
    tree_file(&t, "upper", "keep.o", "new\n");     /* tracked: counts */
    tree_file(&t, "upper", "build/deep/y", "y\n"); /* a whole ignored directory */
    tree_file(&t, "upper", "sub/.gitignore", "*.tmp\n");
    tree_file(&t, "upper", "sub/s.tmp", "t\n");
    tree_file(&t, "upper", "sub/s.c", "c\n");
    tree_file(&t, "upper", "w/.wh..gitignore", ""); /* the agent removed w/.gitignore */
    tree_file(&t, "upper", "w/k.c", "k\n");
    tree_file(&t, "upper", "only/z.o", "z\n"); /* a new directory of ignored files only */
    tree_file(&t, "upper", ".git/index", "agent's churn");
    tree_file(&t, "upper", ".git/objects/ab/cdef", "x");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    CHECK(tree_change(&t, "x.o") == NULL && ignored_named(&t, "x.o"));
    CHECK(tree_change(&t, "keep.o") && tree_change(&t, "keep.o")->kind == WB_MODIFY);
    CHECK(tree_change(&t, "build") == NULL && tree_change(&t, "build/deep/y") == NULL);
    CHECK(ignored_named(&t, "build/"));
    CHECK(tree_change(&t, "sub/s.tmp") == NULL && tree_change(&t, "sub/s.c") != NULL);
    CHECK(tree_change(&t, "w/k.c") != NULL);
    CHECK(tree_change(&t, "w/.gitignore") && tree_change(&t, "w/.gitignore")->kind == WB_DELETE);
    CHECK(tree_change(&t, "only") == NULL && tree_change(&t, "only/z.o") == NULL);
    CHECK(t.scan.cs.git.repo && t.scan.cs.git.ignored == 4);
    CHECK(t.scan.cs.git.scratch == 2); /* the index and the object */
    for (size_t i = 0; i < t.scan.cs.n; i++)
        CHECK(strncmp(t.scan.cs.v[i].path, ".git", 4) != 0);
    /* "include" keeps today's behaviour for ignored files */
    t.pol.include_ignored = true;
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_change(&t, "x.o") != NULL && tree_change(&t, "build/deep/y") != NULL);
    CHECK(tree_change(&t, ".git/index") == NULL);
    tree_free(&t);
}

TEST(not_a_repository_keeps_the_old_rules)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", ".gitignore", "*.o\n");
    tree_file(&t, "lower", ".git/config", "[core]\n"); /* no HEAD, objects, refs */
    tree_file(&t, "upper", "x.o", "obj\n");
    tree_file(&t, "upper", ".git/config", "[alias]\n");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!t.scan.cs.git.repo);
    CHECK(tree_change(&t, "x.o") != NULL);
    CHECK(tree_refused(&t, ".git/config", "git"));
    tree_free(&t);
}

TEST(a_symlinked_ignore_file_is_not_followed)
{
    static const char *const tracked[] = {"a.c"};
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "a.c", "a\n");
    tree_file(&t, "lower", "rules", "*.o\n");
    make_repo(&t, tracked, 1);
    tree_link(&t, "upper", ".gitignore", "rules"); /* git refuses an in-tree symlinked one too */
    tree_file(&t, "upper", "x.o", "obj\n");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_change(&t, "x.o") != NULL);
    CHECK(t.scan.cs.git.ignored == 0);
    tree_free(&t);
}

/* The quick filter never says "no" where libgit2 says "ignored": every
 * pattern against every path, as a top-level rule and as a rule of a
 * subdirectory's ignore file. */
TEST(quick_filter_is_sound_against_libgit2)
{
    static const char *const patterns[] = {
        "*.o",      "build/",   "/root.txt", "a/**/b",   "**/cache", "doc/*.md", "?x",
        "[ab]c",    "[!a]d",    "\\#hash",   "sp\\ ace", "dir/sub/", "*",        "a*b*c",
        "foo/**",   "!keep.o",  "**",        "lit",      "x[",       "\\",       "  trail  ",
        "/a/b/",    "**/x/**",  "*.[oa]",    "[]]z",     "a?c/",     "deep/er/file"};
    static const char *const paths[] = {
        "a.o",   "src/a.o",  "build",     "build/x",  "src/build/y", "root.txt",  "s/root.txt",
        "a/b",   "a/x/y/b",  "cache",     "q/cache/z", "doc/a.md",   "doc/s/a.md", "xx",
        "ac",    "bc",       "cd",        "#hash",    "sp ace",      "dir/sub/f", "abc",
        "axbxc", "foo/bar",  "keep.o",    "lit/z",    "z/lit",       "x[",        "plain.c",
        "trail", "a/b/c",    "m/x/n",     "p.a",      "]z",          "abc/d",     "deep/er/file",
        "deep/er/file/more"};
    char root[64], p[256];
    struct stat st;

    git_libgit2_init();
    for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        for (int sub = 0; sub < 2; sub++) {
            git_repository *repo;
            FILE *f;
            snprintf(root, sizeof(root), "/tmp/wbmatch.XXXXXX");
            if (mkdtemp(root) == NULL || git_repository_init(&repo, root, 0) < 0)
                abort();
            snprintf(p, sizeof(p), "%s/s", root);
            mkdir(p, 0755);
            snprintf(p, sizeof(p), sub ? "%s/s/.gitignore" : "%s/.gitignore", root);
            if ((f = fopen(p, "w")) == NULL)
                abort();
            fprintf(f, "%s\n", patterns[i]);
            fclose(f);
            for (size_t j = 0; j < sizeof(paths) / sizeof(paths[0]); j++) {
                int ign = 0;
                snprintf(p, sizeof(p), sub ? "s/%s" : "%s", paths[j]);
                if (git_ignore_path_is_ignored(&ign, repo, p) < 0)
                    abort();
                if (ign && !wb_ignore_may_match(patterns[i], strlen(patterns[i]), paths[j],
                                                strlen(paths[j]))) {
                    tap_note("pattern %s ignores %s (sub %d), the filter said no", patterns[i],
                             paths[j], sub);
                    CHECK(false);
                }
            }
            git_repository_free(repo);
            snprintf(p, sizeof(p), "rm -rf %s", root);
            if (stat(root, &st) == 0 && system(p) != 0)
                abort();
        }
    }
    git_libgit2_shutdown();
    /* and it does say no where nothing can match */
    CHECK(!wb_ignore_may_match("*.o\nbuild/\n", 11, "pkg0001/file001.c", 17));
    CHECK(!wb_ignore_may_match("# *.c\n!*.c\n\n", 13, "a.c", 3));
    CHECK(!wb_ignore_may_match("/root\n", 6, "sub/root", 8));
    CHECK(wb_ignore_may_match("node_modules/\n", 14, "node_modules/a/b.js", 19));
    CHECK(wb_glob_may_match("**/x", 4, "x", 1) && wb_glob_may_match("a/**/b", 6, "a/b", 3));
}

TEST(ref_names_checked_strictly)
{
    CHECK(wb_git_refname_ok("refs/heads/main"));
    CHECK(wb_git_refname_ok("refs/heads/feature/x-1.2_b+c"));
    CHECK(!wb_git_refname_ok("refs/heads/../../config"));
    CHECK(!wb_git_refname_ok("refs/heads/.hidden"));
    CHECK(!wb_git_refname_ok("refs/heads/main.lock"));
    CHECK(!wb_git_refname_ok("refs/heads//main"));
    CHECK(!wb_git_refname_ok("refs/heads/main/"));
    CHECK(!wb_git_refname_ok("HEAD"));
    CHECK(!wb_git_refname_ok("refs/"));
    CHECK(!wb_git_refname_ok("refs/heads/a b"));
    CHECK(!wb_git_refname_ok("refs/heads/\x1b[31m"));
    CHECK(!wb_git_refname_ok("/etc/passwd"));
}

/* A directory the agent deleted: what it held is judged by the checkout's
 * rules, its own .gitignore's included (gone from the merged view); a
 * directory that keeps an ignored file stays, and so do those above it. A
 * file over the directory takes everything along. */
TEST(a_deleted_directory_keeps_its_rules_for_what_it_held)
{
    static const char *const tracked[] = {"d/.gitignore", "d/keep.c", "d/sub/y.c", "e/f.c"};
    struct tree t;
    char p[4096];

    tree_init(&t);
    tree_file(&t, "lower", ".gitignore", "*.o\n");
    tree_file(&t, "lower", "d/.gitignore", "*.tmp\n");
    tree_file(&t, "lower", "d/keep.c", "k\n");
    tree_file(&t, "lower", "d/sub/y.c", "y\n");
    tree_file(&t, "lower", "e/f.c", "f\n");
    make_repo(&t, tracked, 4);
    tree_file(&t, "lower", "e/sub/z.o", "z\n"); /* only a subdirectory keeps something */
    tree_file(&t, "lower", "d/a.tmp", "t\n");   /* only d/.gitignore ignores it */
    tree_file(&t, "lower", "d/sub/x.o", "o\n"); /* the top's *.o */
    tree_file(&t, "lower", "d/b.txt", "b\n");   /* untracked, not ignored */
    tree_file(&t, "upper", ".wh.d", "");        /* rm -rf d e */
    tree_file(&t, "upper", ".wh.e", "");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    CHECK(tree_change(&t, "d/.gitignore") && tree_change(&t, "d/.gitignore")->kind == WB_DELETE);
    CHECK(tree_change(&t, "d/keep.c") && tree_change(&t, "d/sub/y.c"));
    CHECK(tree_change(&t, "d/b.txt") != NULL);
    CHECK(tree_change(&t, "d/a.tmp") == NULL && ignored_named(&t, "d/a.tmp"));
    CHECK(tree_change(&t, "d/sub/x.o") == NULL && ignored_named(&t, "d/sub/x.o"));
    CHECK(tree_change(&t, "d") == NULL && tree_change(&t, "d/sub") == NULL);
    CHECK(tree_change(&t, "e/f.c") && tree_change(&t, "e/sub/z.o") == NULL);
    CHECK(tree_change(&t, "e") == NULL && tree_change(&t, "e/sub") == NULL);
    CHECK(t.scan.cs.git.ignored == 3 && t.scan.cs.n == 5);
    /* a file where the directory was: its ignored files go with it */
    tree_path(&t, "upper", ".wh.d", p, sizeof(p));
    CHECK(unlink(p) == 0);
    tree_file(&t, "upper", "d", "now a file\n");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_change(&t, "d/a.tmp") && tree_change(&t, "d/sub/x.o") && tree_change(&t, "d/sub"));
    CHECK(tree_change(&t, "d") != NULL && t.scan.cs.git.ignored == 1); /* e/sub/z.o */
    tree_free(&t);
}
