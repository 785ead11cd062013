/* The ignore rules parsed once (writeback/git/gitrules.h): the indexed answer is
 * the reference scan's exactly, it never says "cannot match" where libgit2
 * says ignored, and the vet's budget on rules x paths ends in a refusal. */
#include <errno.h>
#include <git2.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"
#include "writeback/git/gitmatch.h"
#include "writeback/git/gitrules.h"

#define FUSE WB_FORMAT_FUSE_OVERLAYFS

/* Every index shape (literal names, "*" + a dotted tail, a literal first
 * component with a slash) beside the ones that are tried one by one. */
static const char *const patterns[] = {
    "*.o",          "*.tar.gz",     "*.",         "*x.c",        "*.c/",        "Makefile",
    "node_modules", "node_modules/", ".env",      "a.b",         "/root",       "/root/",
    "build/x",      "build/",       "docs/api/v1", "/docs/*.md", "doc/*.md",    "a/**/b",
    "**/cache",     "?x",           "[ab]c",      "[!a]d",       "\\#hash",     "sp\\ ace",
    "dir/sub/",     "*",            "a*b*c",      "foo/**",      "!keep.o",     "**",
    "lit",          "x[",           "\\",         "  trail  ",   "/a/b/",       "**/x/**",
    "*.[oa]",       "[]]z",         "a?c/",       "deep/er/file", "*.pid.lock",  "npm-debug.log*",
    "*$py.class",   "lit/",         "a.b/c",      "# c",         "\\!bang",     "x/",
    "*o",           ".",            "*..",        "a/b/c/d",     "/x[/y",       "z/\\"};

static const char *const paths[] = {
    "a.o",          "src/a.o",      "x.tar.gz",      "tar.gz",       "a.",          "bx.c",
    "x.c",          "q.c/r",        "Makefile",      "src/Makefile", "node_modules", "p/node_modules/q",
    ".env",         "a.b",          "root",          "s/root",       "root/x",      "build/x",
    "build",        "build/y/z",    "docs/api/v1",   "docs/api/v12", "docs/a.md",   "doc/a.md",
    "doc/s/a.md",   "a/b",          "a/x/y/b",       "cache",        "q/cache/z",   "xx",
    "ac",           "bc",           "cd",            "#hash",        "sp ace",      "dir/sub/f",
    "abc",          "axbxc",        "foo/bar",       "keep.o",       "lit/z",       "z/lit",
    "x[",           "plain.c",      "trail",         "a/b/c",        "m/x/n",       "p.a",
    "]z",           "abc/d",        "deep/er/file",  "deep/er/file/more", "run.pid.lock", "npm-debug.log.1",
    "m$py.class",   "a.b/c",        "a.b/c/d",       "!bang",        "x",           "y/x/z",
    "foo.o.",       "a..b",         "a/b/c/d/e",     "/x[/y",        "z/w",         "o"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static bool indexed(const char *text, const char *path, uint64_t *used)
{
    struct wb_ignore_budget b = {.max = UINT64_MAX / 2};
    struct wb_rules *r;
    struct rr_error err;
    bool hit;

    if (wb_rules_parse(text, strlen(text), WB_IGNORE_RULES_FILE, &r, &err) < 0)
        abort();
    hit = wb_rules_may_match(r, path, strlen(path), &b);
    wb_rules_free(r);
    if (used != NULL)
        *used = b.used;
    return hit;
}

static bool same(const char *text, const char *path)
{
    bool ref = wb_ignore_may_match(text, strlen(text), path, strlen(path));

    if (indexed(text, path, NULL) == ref)
        return true;
    tap_note("rules \"%s\" path %s: the reference says %d", text, path, ref);
    return false;
}

/* One rule at a time, every rule together (one bucket table), and rules
 * drawn from a small alphabet that hits every corner of the classifier. */
TEST(indexed_rules_answer_as_the_reference_scan)
{
    static const char alpha[] = "ab.*/?[]\\!";
    char all[4096] = "", text[256], path[64];
    size_t off = 0;
    uint32_t seed = 12345;

    for (size_t i = 0; i < N(patterns); i++)
        off += (size_t)snprintf(all + off, sizeof(all) - off, "%s\n", patterns[i]);
    for (size_t j = 0; j < N(paths); j++) {
        CHECK(same(all, paths[j]));
        for (size_t i = 0; i < N(patterns); i++) {
            snprintf(text, sizeof(text), "%s\n", patterns[i]);
            CHECK(same(text, paths[j]));
        }
    }
    for (int round = 0; round < 20000; round++) {
        size_t tl = 0, pl = 0, n;
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            n = 1 + (seed >> 16) % 6;
            for (size_t c = 0; c < n; c++) {
                seed = seed * 1103515245u + 12345u;
                text[tl++] = alpha[(seed >> 16) % (sizeof(alpha) - 1)];
            }
            text[tl++] = '\n';
        }
        text[tl] = '\0';
        seed = seed * 1103515245u + 12345u;
        n = 1 + (seed >> 16) % 8;
        for (size_t c = 0; c < n; c++) {
            seed = seed * 1103515245u + 12345u;
            path[pl++] = "ab./"[(seed >> 16) % 4];
        }
        path[pl] = '\0';
        if (!same(text, path)) {
            CHECK(false);
            break;
        }
    }
}

/* "Cannot match" implies libgit2's "not ignored": each rule alone, at the
 * top and in a subdirectory's ignore file, and all of them in one file. */
static void against_libgit2(const char *rules, bool sub)
{
    char root[64], p[256];
    git_repository *repo;
    FILE *f;

    snprintf(root, sizeof(root), "/tmp/wbrules.XXXXXX");
    if (mkdtemp(root) == NULL || git_repository_init(&repo, root, 0) < 0)
        abort();
    snprintf(p, sizeof(p), "%s/s", root);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), sub ? "%s/s/.gitignore" : "%s/.gitignore", root);
    if ((f = fopen(p, "w")) == NULL)
        abort();
    fputs(rules, f);
    fclose(f);
    for (size_t j = 0; j < N(paths); j++) {
        int ign = 0;
        if (paths[j][0] == '/')
            continue; /* not a path libgit2 takes */
        snprintf(p, sizeof(p), sub ? "s/%s" : "%s", paths[j]);
        if (git_ignore_path_is_ignored(&ign, repo, p) < 0)
            abort();
        if (ign && !indexed(rules, paths[j], NULL)) {
            tap_note("rules \"%s\" ignore %s (sub %d), the index said no", rules, paths[j], sub);
            CHECK(false);
        }
    }
    git_repository_free(repo);
    snprintf(p, sizeof(p), "rm -rf %s", root);
    if (system(p) != 0)
        abort();
}

TEST(indexed_rules_are_sound_against_libgit2)
{
    char all[4096] = "", one[256];
    size_t off = 0;

    git_libgit2_init();
    for (size_t i = 0; i < N(patterns); i++) {
        off += (size_t)snprintf(all + off, sizeof(all) - off, "%s\n", patterns[i]);
        snprintf(one, sizeof(one), "%s\n", patterns[i]);
        against_libgit2(one, false);
        against_libgit2(one, true);
    }
    against_libgit2(all, false);
    against_libgit2(all, true);
    git_libgit2_shutdown();
    /* and the index does say no, cheaply, where nothing can match */
    CHECK(!indexed("*.o\nbuild/\nnode_modules/\n*.tar.gz\n", "pkg0001/file001.c", NULL));
    CHECK(indexed("*.o\nbuild/\nnode_modules/\n", "node_modules/a/b.js", NULL));
}

/* A realistic file's cost does not grow with its indexed rules: a path
 * costs its components, not the rules. */
TEST(indexed_rules_cost_components_not_rules)
{
    char *text = malloc(20 * 5000 + 1);
    uint64_t few, many;
    size_t off = 0;

    if (text == NULL)
        abort();
    for (int i = 0; i < 5000; i++)
        off += (size_t)sprintf(text + off, i % 2 ? "*.q%06d\n" : "name%06d\n", i);
    CHECK(!indexed("*.q000001\nname000000\n", "src/lib/file.c", &few));
    CHECK(!indexed(text, "src/lib/file.c", &many));
    CHECK(many <= few + 64); /* a bucket shared with another key at most */
    CHECK(indexed(text, "src/name004998/x", NULL) && indexed(text, "src/y.q004999", NULL));
    free(text);
}

TEST(rules_per_file_capped)
{
    struct rr_error err;
    struct wb_rules *r;
    char text[64];

    snprintf(text, sizeof(text), "a\n# c\n\n  \nb\n!c\n");
    CHECK(wb_rules_parse(text, strlen(text), 3, &r, &err) == 0);
    CHECK(wb_rules_count(r) == 3);
    wb_rules_free(r);
    snprintf(text, sizeof(text), "a\nb\nc\nd\n");
    CHECK(wb_rules_parse(text, strlen(text), 3, &r, &err) < 0 && err.errnum == E2BIG);
}

/* ---- in the vet ---- */

/* n rules: prefix and a seven-digit number each */
static char *rules_text(const char *prefix, unsigned n)
{
    char *s = malloc((size_t)n * 24 + 1);
    size_t off = 0;

    if (s == NULL)
        abort();
    s[0] = '\0';
    for (unsigned i = 0; i < n; i++)
        off += (size_t)sprintf(s + off, "%s%07u\n", prefix, i);
    return s;
}

static void make_repo(struct tree *t)
{
    char p[4096];
    git_repository *repo;

    tree_file(t, "lower", "a.c", "a\n");
    tree_path(t, "lower", "", p, sizeof(p));
    git_libgit2_init();
    if (git_repository_init(&repo, p, 0) < 0)
        abort();
    git_repository_free(repo);
    git_libgit2_shutdown();
}

/* The repro's shape (review3 R8) at the rule caps: five levels of 10,000
 * rules no index can skip, and 3,000 files 60 directories below. Without
 * the budget that is ~10^10 glob steps (minutes); with it a refusal of its
 * own class, and the walk stops. */
TEST(ignore_rules_budget_refuses_the_set)
{
    char *general = rules_text("a*q", WB_IGNORE_RULES_FILE);
    char dir[512] = "", p[600];
    size_t off = 0;
    struct tree t;
    bool found = false;

    tree_init(&t);
    make_repo(&t);
    for (int l = 0; l < 60; l++) {
        off += (size_t)snprintf(dir + off, sizeof(dir) - off, "%sd%d", l ? "/" : "", l);
        if (l < 5) {
            snprintf(p, sizeof(p), "%s/.gitignore", dir);
            tree_file(&t, "upper", p, general);
        }
    }
    for (int i = 0; i < 3000; i++) {
        snprintf(p, sizeof(p), "%s/f%d.c", dir, i);
        tree_file(&t, "upper", p, "x");
    }
    CHECK(tree_vet(&t, FUSE) == 0);
    CHECK(tree_refused(&t, NULL, "ignore-cost"));
    for (size_t i = 0; i < t.scan.cs.refused.n; i++)
        if (strcmp(t.scan.cs.refused.v[i].code, "ignore-cost") == 0)
            found = strstr(t.scan.cs.refused.v[i].detail, "too costly to evaluate") != NULL;
    CHECK(found);
    CHECK(t.scan.stopped);
    tree_free(&t);
    free(general);
}

static void must_match(struct tree *t, const char *path, bool ignored)
{
    bool change = tree_change(t, path) != NULL;

    if (change == ignored)
        tap_note("%s: %s", path, ignored ? "exported, should be ignored" : "ignored");
    CHECK(change != ignored);
}

/* Past a cap on rules an ignore file is not read (as one past the byte
 * caps): its paths count, and the summary says why. At the caps all count. */
TEST(ignore_rules_capped_per_file_and_in_all)
{
    char *full = rules_text("n", WB_IGNORE_RULES_FILE - 1);
    char *over = rules_text("n", WB_IGNORE_RULES_FILE);
    char *big, p[64];
    struct tree t;

    /* per file: the 10,000th rule counts, the 10,001st file is not read */
    big = malloc(strlen(full) + 16);
    tree_init(&t);
    make_repo(&t);
    sprintf(big, "%sx.o\n", full);
    tree_file(&t, "upper", "in/.gitignore", big);
    tree_file(&t, "upper", "in/x.o", "o");
    sprintf(big, "%sy.o\n", over);
    tree_file(&t, "upper", "out/.gitignore", big);
    tree_file(&t, "upper", "out/y.o", "o");
    CHECK(tree_vet(&t, FUSE) == 0);
    must_match(&t, "in/x.o", true);
    must_match(&t, "out/y.o", false);
    CHECK(strstr(t.scan.cs.git.problem, "of over 10000 rules was not read") != NULL);
    tree_free(&t);

    /* in all: five files of 10,000 are read, a sixth below is not */
    tree_init(&t);
    make_repo(&t);
    sprintf(big, "%sx.o\n", full);
    for (int l = 0; l < 5; l++) {
        snprintf(p, sizeof(p), "%.*s.gitignore", 3 * l, "d0/d1/d2/d3/d4/");
        big[strlen(full)] = (char)('v' + l); /* v.o w.o x.o y.o z.o */
        tree_file(&t, "upper", p, big);
    }
    tree_file(&t, "upper", "d0/d1/d2/d3/d4/.gitignore", "q.o\n");
    tree_file(&t, "upper", "d0/d1/d2/d3/d4/z.o", "o");
    tree_file(&t, "upper", "d0/d1/d2/d3/d4/q.o", "o");
    CHECK(tree_vet(&t, FUSE) == 0);
    must_match(&t, "d0/d1/d2/d3/d4/z.o", true);
    must_match(&t, "d0/d1/d2/d3/d4/q.o", false);
    CHECK(strstr(t.scan.cs.git.problem, "over 50000 rules in all") != NULL);
    tree_free(&t);
    free(big);
    free(full);
    free(over);
}
