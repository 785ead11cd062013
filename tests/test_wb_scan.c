/* The vetting rules on small plain trees (the fuse-overlayfs format's .wh.
 * files stand in for whiteouts, so no mknod and no root is needed); the
 * kernel formats' markers are exercised through real mounts in
 * integration/writeback_*.bats. */
#include <sys/xattr.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"

#define FUSE WB_FORMAT_FUSE_OVERLAYFS
#define USERX WB_FORMAT_OVERLAY_USERXATTR

TEST(kinds_from_a_plain_upper)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "mod.txt", "a\n");
    tree_file(&t, "lower", "same.txt", "same\n");
    tree_file(&t, "lower", "gone.txt", "x\n");
    tree_file(&t, "lower", "dir/in.txt", "in\n");
    tree_file(&t, "upper", "mod.txt", "b\n");
    tree_file(&t, "upper", "same.txt", "same\n"); /* a copy-up that changed nothing */
    tree_file(&t, "upper", "new.txt", "n\n");
    tree_file(&t, "upper", ".wh.gone.txt", "");
    tree_file(&t, "upper", ".wh.dir", "");
    tree_dir(&t, "upper", "empty");
    tree_link(&t, "upper", "ln", "mod.txt");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    CHECK(tree_change(&t, "mod.txt") && tree_change(&t, "mod.txt")->kind == WB_MODIFY);
    CHECK(tree_change(&t, "same.txt") == NULL);
    CHECK(tree_change(&t, "new.txt") && tree_change(&t, "new.txt")->kind == WB_ADD);
    CHECK(tree_change(&t, "gone.txt") && tree_change(&t, "gone.txt")->kind == WB_DELETE);
    CHECK(tree_change(&t, "dir") && tree_change(&t, "dir")->kind == WB_DIR_DELETE);
    CHECK(tree_change(&t, "dir/in.txt") && tree_change(&t, "dir/in.txt")->kind == WB_DELETE);
    CHECK(tree_change(&t, "empty") && tree_change(&t, "empty")->kind == WB_DIR_ADD);
    CHECK(tree_change(&t, "ln") && tree_change(&t, "ln")->kind == WB_SYMLINK);
    CHECK(t.scan.cs.n == 7);
    tree_free(&t);
}

TEST(mode_change_only_the_exec_bit)
{
    struct tree t;
    char p[4096];

    tree_init(&t);
    tree_file(&t, "lower", "run.sh", "#!/bin/sh\n");
    tree_file(&t, "lower", "perm.txt", "p\n");
    tree_file(&t, "upper", "run.sh", "#!/bin/sh\n");
    tree_file(&t, "upper", "perm.txt", "p\n");
    tree_path(&t, "upper", "run.sh", p, sizeof(p));
    chmod(p, 0755);
    tree_path(&t, "upper", "perm.txt", p, sizeof(p));
    chmod(p, 0600); /* not carried: not a change */
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_change(&t, "run.sh") && tree_change(&t, "run.sh")->kind == WB_MODE);
    CHECK(tree_change(&t, "perm.txt") == NULL);
    tree_free(&t);
}

TEST(opaque_directory_hides_the_lower)
{
    struct tree t;
    char p[4096];

    tree_init(&t);
    tree_file(&t, "lower", "d/a", "a\n");
    tree_file(&t, "lower", "d/sub/b", "b\n");
    tree_file(&t, "lower", "d/keep", "k\n");
    tree_file(&t, "upper", "d/keep", "k\n");
    tree_file(&t, "upper", "d/c", "c\n");
    tree_path(&t, "upper", "d", p, sizeof(p));
    if (setxattr(p, "user.overlay.opaque", "y", 1, 0) < 0) {
        tap_note("no user xattrs on /tmp: skipped");
        tree_free(&t);
        return;
    }
    CHECK(tree_vet(&t, USERX) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    CHECK(tree_change(&t, "d/a") && tree_change(&t, "d/a")->kind == WB_DELETE);
    CHECK(tree_change(&t, "d/sub") && tree_change(&t, "d/sub")->kind == WB_DIR_DELETE);
    CHECK(tree_change(&t, "d/sub/b") != NULL);
    CHECK(tree_change(&t, "d/c") && tree_change(&t, "d/c")->kind == WB_ADD);
    CHECK(tree_change(&t, "d/keep") == NULL);
    CHECK(tree_change(&t, "d") == NULL);
    tree_free(&t);
}

TEST(cap_on_changed_files)
{
    struct tree t;

    tree_init(&t);
    t.pol.max_files = 3;
    tree_file(&t, "upper", "1", "x");
    tree_file(&t, "upper", "2", "x");
    tree_file(&t, "upper", "3", "x");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!tree_refused(&t, NULL, "files-cap"));
    tree_file(&t, "upper", "4", "x");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, NULL, "files-cap"));
    tree_free(&t);
}

TEST(cap_on_total_and_per_file_bytes)
{
    struct tree t;

    tree_init(&t);
    t.pol.max_total_bytes = 10;
    t.pol.max_file_bytes = 8;
    tree_file(&t, "upper", "a", "12345678");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    tree_file(&t, "upper", "b", "12345678");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, NULL, "total-cap"));
    CHECK(!tree_refused(&t, NULL, "file-cap"));
    tree_file(&t, "upper", "c", "123456789");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "c", "file-cap"));
    tree_free(&t);
}

static bool refused_text(const struct tree *t, const char *code, const char *text)
{
    for (size_t i = 0; i < t->scan.cs.refused.n; i++)
        if (strcmp(t->scan.cs.refused.v[i].code, code) == 0 &&
            strstr(t->scan.cs.refused.v[i].detail, text) != NULL)
            return true;
    return false;
}

TEST(cap_on_walk_entries)
{
    struct tree t;
    char name[32];

    tree_init(&t);
    t.pol.max_files = 1; /* the walk stops after 1 * WB_WALK_FACTOR + 64 entries */
    for (int i = 0; i < 90; i++) {
        snprintf(name, sizeof(name), "d%d/f%d", i / 10, i);
        tree_file(&t, "lower", name, "same");
        tree_file(&t, "upper", name, "same"); /* unchanged copy-ups still cost a visit */
    }
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(refused_text(&t, "walk-cap", "hold more than"));
    CHECK(t.scan.stopped);
    tree_free(&t);
}

TEST(cap_on_one_wide_directory)
{
    struct tree t;
    char name[32];

    tree_init(&t);
    t.pol.max_files = 1;
    for (int i = 0; i < 80; i++) {
        snprintf(name, sizeof(name), "wide/f%d", i);
        tree_file(&t, "upper", name, "x");
    }
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(refused_text(&t, "walk-cap", "a directory holds more than"));
    tree_free(&t);
}

TEST(hard_depth_limit_whatever_the_policy)
{
    struct tree t;
    char rel[1024] = "";

    tree_init(&t);
    t.pol.max_depth = 1000;
    for (int i = 0; i < WB_DEPTH_HARD_MAX + 4; i++)
        strcat(rel, "d/");
    strcat(rel, "f");
    tree_file(&t, "upper", rel, "deep");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(refused_text(&t, "path", "hard limit"));
    tree_free(&t);
}

TEST(caps_on_names_depth_and_path_length)
{
    struct tree t;

    tree_init(&t);
    t.pol.max_name_bytes = 8;
    t.pol.max_depth = 3;
    t.pol.max_path_bytes = 16;
    tree_file(&t, "upper", "longname9", "x");
    tree_file(&t, "upper", "a/b/c/d", "x");
    tree_file(&t, "upper", "abcdefg/hijklmn/op", "x");
    tree_file(&t, "upper", "ok/fine", "x");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "longname9", "path"));
    CHECK(tree_refused(&t, "a/b/c/d", "path"));
    CHECK(tree_refused(&t, "abcdefg/hijklmn/op", "path"));
    CHECK(!tree_refused(&t, "ok/fine", "path"));
    tree_free(&t);
}

TEST(collisions_case_and_normalisation)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "README", "r");
    tree_file(&t, "lower", "Makefile", "m");
    tree_file(&t, "lower", "makefile", "m"); /* the checkout's own pair: not the agent's */
    tree_file(&t, "upper", "readme", "x");
    tree_file(&t, "upper", "d/caf\xc3\xa9", "nfc");
    tree_file(&t, "upper", "d/cafe\xcc\x81", "nfd");
    tree_file(&t, "upper", "d/other", "o");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "readme", "collision"));
    CHECK(tree_refused(&t, NULL, "collision"));
    CHECK(!tree_refused(&t, "makefile", "collision") && !tree_refused(&t, "Makefile", "collision"));
    CHECK(!tree_refused(&t, "d/other", "collision"));
    tree_free(&t);
}

TEST(backslash_in_names_and_targets)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "upper", ".git\\hooks\\post-checkout", "#!/bin/sh");
    tree_file(&t, "upper", "sub\\.GIT\\config", "[core]");
    tree_link(&t, "upper", "win", "..\\..\\..\\Windows\\System32");
    tree_link(&t, "upper", "hooks", ".git\\hooks");
    tree_file(&t, "upper", "plain", "p");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, ".git\\hooks\\post-checkout", "backslash"));
    CHECK(tree_refused(&t, "sub\\.GIT\\config", "backslash"));
    CHECK(tree_refused(&t, "win", "backslash"));
    CHECK(tree_refused(&t, "hooks", "backslash"));
    CHECK(!tree_refused(&t, "plain", "backslash"));
    tree_free(&t);
}

TEST(collisions_windows_and_micro_sign)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "run.sh", "#!/bin/sh");
    tree_file(&t, "upper", "run.sh:stream", "x");
    tree_file(&t, "upper", "run.sh.", "x");
    tree_file(&t, "upper", "d/\xc2\xb5", "micro");
    tree_file(&t, "upper", "d/\xce\xbc", "mu");
    tree_file(&t, "upper", "d/12:00", "a"); /* ':' alone is a name like any other */
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "run.sh:stream", "collision"));
    CHECK(tree_refused(&t, "run.sh.", "path"));
    CHECK(tree_refused(&t, "d/\xce\xbc", "collision") ||
          tree_refused(&t, "d/\xc2\xb5", "collision"));
    CHECK(!tree_refused(&t, "d/12:00", "collision") && !tree_refused(&t, "d/12:00", "path"));
    tree_free(&t);
}

TEST(checkout_symlink_with_a_target_an_export_cannot_carry)
{
    struct tree t;

    tree_init(&t);
    tree_link(&t, "lower", "gone", "bad\xff");
    tree_link(&t, "lower", "moved", "bad\xfe");
    tree_link(&t, "lower", "fine", "README");
    tree_file(&t, "upper", ".wh.gone", "");
    tree_file(&t, "upper", ".wh.fine", "");
    tree_link(&t, "upper", "moved", "README");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "gone", "symlink"));
    CHECK(tree_refused(&t, "moved", "symlink"));
    CHECK(!tree_refused(&t, "fine", "symlink"));
    tree_free(&t);
}

TEST(rename_by_case_is_no_collision)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "README", "r");
    tree_file(&t, "upper", ".wh.README", "");
    tree_file(&t, "upper", "readme", "r");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(!wb_changeset_refused(&t.scan.cs));
    tree_free(&t);
}

TEST(protect_and_warn_globs)
{
    struct tree t;

    tree_init(&t);
    strv_push(&t.pol.protect, "*.pem");
    strv_push(&t.pol.warn, "Makefile");
    tree_file(&t, "upper", "keys/server.pem", "k");
    tree_file(&t, "upper", ".gitmodules", "m");
    tree_file(&t, "upper", "sub/Makefile", "all:");
    tree_file(&t, "upper", ".github/workflows/ci.yml", "on:");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "keys/server.pem", "protected"));
    CHECK(tree_refused(&t, ".gitmodules", "protected"));
    CHECK(!tree_refused(&t, "sub/Makefile", "protected"));
    /* sub/Makefile, .github/workflows/ci.yml and the new .github/workflows */
    CHECK(t.scan.cs.warned.n == 3);
    tree_free(&t);
}

TEST(protected_and_warned_in_every_spelling)
{
    static const char *const gitmodules[] = {
        ".GitModules", "c/.gitmodules::$DATA", "d/gitmod~1", "e/GITMOD~4", "f/gi7eba~1",
    };
    struct tree t;

    tree_init(&t);
    for (size_t i = 0; i < sizeof(gitmodules) / sizeof(gitmodules[0]); i++)
        tree_file(&t, "upper", gitmodules[i], "[submodule]");
    tree_file(&t, "upper", ".GitHub/Workflows/x.yml", "on:");
    tree_file(&t, "upper", "a/.gitmodules.", "[submodule]");
    tree_file(&t, "upper", "b/.gitmodules ", "[submodule]");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "a/.gitmodules.", "path")); /* any trailing dot or space */
    CHECK(tree_refused(&t, "b/.gitmodules ", "path"));
    for (size_t i = 0; i < sizeof(gitmodules) / sizeof(gitmodules[0]); i++)
        if (!CHECK(tree_refused(&t, gitmodules[i], "protected")))
            tap_note("not refused: %s", gitmodules[i]);
    CHECK(!tree_refused(&t, ".GitHub/Workflows/x.yml", "protected"));
    CHECK(t.scan.cs.warned.n == 2); /* the file and its new directory */
    tree_free(&t);
}

TEST(git_paths)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", ".git/config", "c");
    tree_file(&t, "upper", ".git/config", "evil");
    tree_file(&t, "upper", "vendor/lib/.Git/HEAD", "ref");
    tree_file(&t, "upper", "x/git~1/HEAD", "ref");
    tree_link(&t, "upper", "cfg", ".git/config");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, ".git/config", "git"));
    CHECK(tree_refused(&t, "vendor/lib/.Git/HEAD", "git"));
    CHECK(tree_refused(&t, "x/git~1/HEAD", "git"));
    CHECK(tree_refused(&t, "cfg", "symlink-escape"));
    tree_free(&t);
}

TEST(symlinks_resolved_through_the_checkout)
{
    struct tree t;

    tree_init(&t);
    tree_dir(&t, "lower", "a");
    tree_link(&t, "lower", "a/up", "..");   /* the checkout's own link: the top */
    tree_link(&t, "upper", "x", "a/up/.."); /* lexically inside, really above the top */
    tree_link(&t, "upper", "y", "a/up/a");  /* inside */
    tree_link(&t, "upper", "z", "/etc");
    tree_dir(&t, "upper", "b");
    tree_link(&t, "upper", "b/w", "../../outside");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "x", "symlink-escape"));
    CHECK(!tree_refused(&t, "y", "symlink-escape"));
    CHECK(tree_refused(&t, "z", "symlink-escape"));
    CHECK(tree_refused(&t, "b/w", "symlink-escape"));
    tree_free(&t);
}

TEST(symlink_replacing_a_directory_and_parents)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "docs/a", "a");
    tree_dir(&t, "lower", "src");
    tree_link(&t, "upper", "docs", "src"); /* a non-directory hides the directory */
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_change(&t, "docs") && tree_change(&t, "docs")->kind == WB_REPLACE);
    CHECK(tree_change(&t, "docs/a") && tree_change(&t, "docs/a")->kind == WB_DELETE);
    CHECK(tree_refused(&t, "docs", "symlink-replaces-dir"));
    CHECK(tree_refused(&t, "docs/a", "parent-symlink"));
    tree_free(&t);
}

TEST(marker_and_special_rules)
{
    struct tree t;
    char p[4096];

    tree_init(&t);
    tree_file(&t, "upper", "locked/f", "x");
    tree_path(&t, "upper", "locked", p, sizeof(p));
    chmod(p, 0);
    tree_file(&t, "upper", "suid", "x");
    tree_path(&t, "upper", "suid", p, sizeof(p));
    chmod(p, 04755);
    tree_file(&t, "upper", "one", "x");
    tree_path(&t, "upper", "one", p, sizeof(p));
    {
        char q[4096];
        tree_path(&t, "upper", "two", q, sizeof(q));
        CHECK(link(p, q) == 0);
    }
    tree_path(&t, "upper", "fifo", p, sizeof(p));
    CHECK(mkfifo(p, 0644) == 0);
    tree_file(&t, "upper", ".wh.x/y", "planted");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, "locked", "unreadable"));
    CHECK(tree_refused(&t, "suid", "mode-bits"));
    CHECK(tree_refused(&t, "one", "hardlink") && tree_refused(&t, "two", "hardlink"));
    CHECK(tree_refused(&t, "fifo", "special"));
    CHECK(tree_refused(&t, ".wh.x", "foreign-marker"));
    CHECK(tree_vet(&t, USERX) == 0); /* in a kernel format any .wh. name is planted */
    CHECK(tree_refused(&t, ".wh.x", "foreign-marker"));
    tree_free(&t);
}

TEST(fuse_opaque_marker_on_the_top_is_refused)
{
    struct tree t;

    tree_init(&t);
    tree_file(&t, "lower", "a", "a");
    tree_file(&t, "upper", ".wh..wh..opq", "");
    tree_file(&t, "upper", "sub/.wh..wh..opq", "");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, ".wh..wh..opq", "impossible-marker"));
    CHECK(!tree_refused(&t, "sub/.wh..wh..opq", "impossible-marker"));
    tree_free(&t);
}

TEST(content_that_may_not_be_printed_is_marked_while_hashed)
{
    struct tree t;
    const struct wb_change *c;

    tree_init(&t);
    tree_file(&t, "lower", "was_cr.txt", "a\r\n");
    tree_file(&t, "upper", "was_cr.txt", "a\n");
    tree_file(&t, "upper", "cr.sh", "echo safe\r# rm -rf ~\n");
    tree_file(&t, "upper", "fine.c", "int x;\t/* ok */\n");
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK((c = tree_change(&t, "cr.sh")) && c->new.unsafe &&
          strcmp(c->new.unsafe, "a carriage return") == 0);
    CHECK((c = tree_change(&t, "was_cr.txt")) && c->base.unsafe && !c->new.unsafe);
    CHECK((c = tree_change(&t, "fine.c")) && !c->new.unsafe);
    tree_free(&t);
}
