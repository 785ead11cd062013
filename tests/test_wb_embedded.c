/* writeback/rules/embedded.c: what makes a directory a git directory. */
#include <string.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"
#include "writeback/rules/embedded.h"

#define S(x) x, sizeof(x) - 1
#define FUSE WB_FORMAT_FUSE_OVERLAYFS

TEST(git_directory_parts_in_every_spelling)
{
    CHECK(wb_gitdir_part(S("HEAD"), false, false) == WB_GD_HEAD);
    CHECK(wb_gitdir_part(S("head"), false, false) == WB_GD_HEAD);
    CHECK(wb_gitdir_part(S("HEAD"), false, true) == WB_GD_HEAD); /* a symlink HEAD */
    CHECK(wb_gitdir_part(S("He\xe2\x80\x8c" "ad"), false, false) == WB_GD_HEAD); /* HFS+ */
    CHECK(wb_gitdir_part(S("HEAD::$DATA"), false, false) == WB_GD_HEAD);        /* NTFS */
    CHECK(wb_gitdir_part(S("objects"), true, false) == WB_GD_OBJECTS);
    CHECK(wb_gitdir_part(S("OBJECTS"), true, false) == WB_GD_OBJECTS);
    CHECK(wb_gitdir_part(S("objects"), false, true) == WB_GD_OBJECTS); /* followed */
    CHECK(wb_gitdir_part(S("Refs"), true, false) == WB_GD_REFS);
    CHECK(wb_gitdir_part(S("commondir"), false, false) == WB_GD_COMMONDIR);
    /* the wrong kind is not the part: git reads HEAD, enters objects/ */
    CHECK(wb_gitdir_part(S("HEAD"), true, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S("objects"), false, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S("refs"), false, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S("HEADS"), false, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S("ORIG_HEAD"), false, false) == WB_GD_NONE);
    /* a leading code point HFS+ ignores is not the first letter: the quick
     * look at an ASCII first byte must not skip these */
    CHECK(wb_gitdir_part(S("\xe2\x80\x8cHEAD"), false, false) == WB_GD_HEAD);
    CHECK(wb_gitdir_part(S("\xef\xbb\xbfrefs"), true, false) == WB_GD_REFS);
    CHECK(wb_gitdir_part(S("\xe2\x80\x8f" "COMMONDIR. "), false, false) == WB_GD_COMMONDIR);
    CHECK(wb_gitdir_part(S(".HEAD"), false, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S(":HEAD"), false, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part(S("xobjects"), true, false) == WB_GD_NONE);
    CHECK(wb_gitdir_part("", 0, false, false) == WB_GD_NONE);
}

TEST(which_parts_make_a_git_directory)
{
    CHECK(wb_gitdir_complete(WB_GD_HEAD | WB_GD_OBJECTS | WB_GD_REFS));
    CHECK(wb_gitdir_complete(WB_GD_HEAD | WB_GD_COMMONDIR));
    CHECK(wb_gitdir_complete(WB_GD_HEAD | WB_GD_COMMONDIR | WB_GD_REFS));
    CHECK(!wb_gitdir_complete(WB_GD_HEAD | WB_GD_OBJECTS));
    CHECK(!wb_gitdir_complete(WB_GD_HEAD | WB_GD_REFS));
    CHECK(!wb_gitdir_complete(WB_GD_OBJECTS | WB_GD_REFS));
    CHECK(!wb_gitdir_complete(WB_GD_OBJECTS | WB_GD_REFS | WB_GD_COMMONDIR));
    CHECK(!wb_gitdir_complete(WB_GD_HEAD));
    CHECK(!wb_gitdir_complete(0));
}

static size_t refusals(const struct tree *t, const char *code)
{
    size_t n = 0;

    for (size_t i = 0; i < t->scan.cs.refused.n; i++)
        n += strcmp(t->scan.cs.refused.v[i].code, code) == 0;
    return n;
}

TEST(embedded_repositories_in_the_merged_view)
{
    struct tree t;

    tree_init(&t);
    tree_dir(&t, "lower", "fixture");
    tree_dir(&t, "lower", "fixture/objects");
    tree_dir(&t, "lower", "fixture/refs");
    tree_file(&t, "lower", "bare/HEAD", "ref: refs/heads/main\n");
    tree_dir(&t, "lower", "bare/objects");
    tree_dir(&t, "lower", "bare/refs");
    tree_file(&t, "lower", "other/HEAD", "x");
    tree_file(&t, "upper", "fixture/HEAD", "ref: refs/heads/main\n"); /* completes one */
    tree_file(&t, "upper", "deep/a/b/HEAD", "x");                       /* with a commondir */
    tree_file(&t, "upper", "deep/a/b/commondir", "../../..");
    tree_file(&t, "upper", "deep/a/b/c/d.txt", "x");
    tree_file(&t, "upper", "other/refs/x", "x"); /* HEAD and refs/ but no objects/ */
    tree_dir(&t, "upper", ".git");
    tree_dir(&t, "upper", ".git/modules");
    tree_file(&t, "upper", ".git/modules/sub/HEAD", "x"); /* the .git rules' business */
    tree_dir(&t, "upper", ".git/modules/sub/objects");
    tree_dir(&t, "upper", ".git/modules/sub/refs");
    tree_file(&t, "upper", "plain.txt", "x");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "fixture", "embedded-repo"));
    CHECK(tree_refused(&t, "deep/a/b", "embedded-repo"));
    CHECK(!tree_refused(&t, "bare", "embedded-repo")); /* the checkout's, left alone */
    CHECK(!tree_refused(&t, "other", "embedded-repo"));
    CHECK(refusals(&t, "embedded-repo") == 2); /* once per directory, not per change */
    tree_free(&t);
}

TEST(a_change_inside_a_checkouts_bare_repository)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "bare/HEAD", "ref: refs/heads/main\n");
    tree_dir(&t, "lower", "bare/objects");
    tree_dir(&t, "lower", "bare/refs");
    tree_file(&t, "upper", "bare/config", "[core]\n\tfsmonitor = evil\n");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "bare", "embedded-repo"));
    tree_free(&t);
}
