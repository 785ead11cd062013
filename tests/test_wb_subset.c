/* Part of a change set: the patterns select exactly what they name (a
 * directory with what is under it, globs within a name unless "**"), a
 * pattern naming nothing is said, and a selection that leaves a broken
 * state is refused with its reason: a file without the new directory it
 * lies in, a directory removed while something under it stays, half of a
 * rename. The commit message lists what was left out. */
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "writeback/changeset/commitmsg.h"
#include "writeback/changeset/subset.h"

static struct wb_obj file(const char *text)
{
    struct wb_obj o = {.type = WB_T_FILE, .size = strlen(text)};
    wb_sha256(text, o.size, o.sha256);
    return o;
}

static void add(struct wb_changeset *cs, const char *path, struct wb_obj base, struct wb_obj new)
{
    struct rr_error err;

    wb_changeset_add(cs, path, strlen(path), &base, &new, &err);
}

/* new dir d/ with d/x and d/y; old/ removed with old/a; a.txt modified;
 * moved.txt -> renamed.txt; f replaced by a directory holding f/in. */
static void build(struct wb_changeset *cs)
{
    struct wb_obj none = {0}, dir = {.type = WB_T_DIR};

    memset(cs, 0, sizeof(*cs));
    add(cs, "d", none, dir);
    add(cs, "d/x", none, file("x\n"));
    add(cs, "d/y", none, file("y\n"));
    add(cs, "old", dir, none);
    add(cs, "old/a", file("a\n"), none);
    add(cs, "a.txt", file("1\n"), file("2\n"));
    add(cs, "moved.txt", file("same content\n"), none);
    add(cs, "renamed.txt", none, file("same content\n"));
    add(cs, "empty1", file(""), none);
    add(cs, "empty2", none, file(""));
    add(cs, "f", file("f\n"), dir);
    add(cs, "f/in", none, file("in\n"));
    wb_changeset_sort(cs);
}

static char *kept(const struct wb_changeset *cs, const bool *keep)
{
    static char buf[512];

    buf[0] = '\0';
    for (size_t i = 0; i < cs->n; i++)
        if (keep[i]) {
            strcat(buf, cs->v[i].path);
            strcat(buf, " ");
        }
    return buf;
}

static int select_(const struct wb_changeset *cs, const char *const *only,
                   const char *const *exclude, bool *keep, struct wb_notes *why)
{
    struct wb_subset_spec spec = {.only = only, .exclude = exclude};
    struct rr_error err;

    memset(why, 0, sizeof(*why));
    if (wb_subset_select(cs, &spec, keep, &err) < 0) {
        tap_note("select: %s", err.msg);
        return -1;
    }
    return wb_subset_check(cs, keep, why, &err);
}

TEST(patterns_select_paths_directories_and_globs)
{
    CHECK(wb_subset_match("d", "d/x"));
    CHECK(wb_subset_match("d", "d"));
    CHECK(!wb_subset_match("d", "dd/x"));
    CHECK(wb_subset_match("*.txt", "a.txt"));
    CHECK(!wb_subset_match("*.txt", "sub/a.txt"));
    CHECK(wb_subset_match("**.txt", "sub/a.txt"));
    CHECK(wb_subset_match("sub/*.c", "sub/a.c"));
    CHECK(!wb_subset_match("sub/*.c", "sub/deeper/a.c"));
    CHECK(!wb_subset_match("A.TXT", "a.txt"));
}

TEST(only_and_exclude_keep_exactly_the_subset)
{
    static const char *const only[] = {"d", "a.txt", NULL};
    static const char *const excl[] = {"d/y", NULL};
    static const char *const nothing[] = {"nope", NULL};
    struct wb_changeset cs;
    struct wb_subset_spec spec = {.only = nothing};
    struct wb_notes why;
    struct rr_error err;
    bool keep[16];

    build(&cs);
    CHECK(select_(&cs, only, excl, keep, &why) == 0 && why.n == 0);
    CHECK(strcmp(kept(&cs, keep), "a.txt d d/x ") == 0);
    wb_notes_free(&why);
    CHECK(wb_subset_select(&cs, &spec, keep, &err) < 0 && strstr(err.msg, "--only nope"));
    wb_changeset_free(&cs);
}

static bool refused_for(const struct wb_notes *why, const char *path, const char *code)
{
    for (size_t i = 0; i < why->n; i++)
        if (strcmp(why->v[i].path, path) == 0 && strcmp(why->v[i].code, code) == 0)
            return true;
    return false;
}

TEST(broken_subsets_are_refused_with_the_reason)
{
    static const char *const no_dir[] = {"d/x", NULL};
    static const char *const half_removal[] = {"old/a", NULL};
    static const char *const keep_child[] = {"old", NULL};
    static const char *const half_rename[] = {"moved.txt", NULL};
    static const char *const in_replaced[] = {"f/in", NULL};
    static const char *const empties[] = {"empty1", NULL};
    static const char *const rename_both[] = {"moved.txt", "renamed.txt", NULL};
    struct wb_changeset cs;
    struct wb_notes why;
    bool keep[16];

    build(&cs);
    CHECK(select_(&cs, no_dir, NULL, keep, &why) == 0 &&
          refused_for(&why, "d/x", "subset-directory"));
    wb_notes_free(&why);
    /* the contents alone may go (the directory stays, empty) */
    CHECK(select_(&cs, half_removal, NULL, keep, &why) == 0 && why.n == 0);
    wb_notes_free(&why);
    /* "old" selects old/a too; excluding the child breaks it */
    {
        static const char *const child[] = {"old/a", NULL};
        CHECK(select_(&cs, keep_child, child, keep, &why) == 0 &&
              refused_for(&why, "old", "subset-removal"));
        wb_notes_free(&why);
    }
    CHECK(select_(&cs, half_rename, NULL, keep, &why) == 0 &&
          refused_for(&why, "moved.txt", "subset-rename"));
    wb_notes_free(&why);
    CHECK(select_(&cs, rename_both, NULL, keep, &why) == 0 && why.n == 0);
    wb_notes_free(&why);
    CHECK(select_(&cs, in_replaced, NULL, keep, &why) == 0 &&
          refused_for(&why, "f/in", "subset-directory"));
    wb_notes_free(&why);
    /* two empty files are no rename */
    CHECK(select_(&cs, empties, NULL, keep, &why) == 0 && why.n == 0);
    wb_notes_free(&why);
    wb_changeset_free(&cs);
}

TEST(the_message_lists_what_was_left_out)
{
    static const char *const excl[] = {"d", NULL};
    static const char digest[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    struct wb_changeset cs, sub;
    struct wb_notes why;
    struct rr_error err;
    bool keep[16], left[16];
    char *msg = NULL;
    size_t len;

    build(&cs);
    wb_origin_set_review(&cs.origin, "rev-1", &err);
    CHECK(select_(&cs, NULL, excl, keep, &why) == 0 && why.n == 0);
    for (size_t i = 0; i < cs.n; i++)
        left[i] = !keep[i];
    CHECK(wb_commit_message(&cs, left, digest, &msg, &len, &err) == 0);
    CHECK(msg &&
          strstr(msg, "Left out of this commit (approved with the set, not applied): 3 "
                      "changes\n    dir-add    d/\n    add        d/x\n    add        d/y\n"));
    CHECK(msg && strstr(msg, "\n\nRevrun-Digest: sha256:"
                             "00112233445566778899aabbccddeeff"
                             "00112233445566778899aabbccddeeff\nRevrun-Review: rev-1\n"));
    /* no commits of the agent's: the summary's list, of the applied ones */
    CHECK(msg && strncmp(msg, "Apply the agent's change set (9 changes)\n\n", 42) == 0);
    free(msg);
    CHECK(wb_subset_take(&cs, keep, &sub, &err) == 0 && sub.n == 9 && sub.origin.review &&
          strcmp(sub.origin.review, "rev-1") == 0);
    wb_changeset_free(&sub);
    wb_notes_free(&why);
    wb_changeset_free(&cs);
}

TEST(the_message_carries_the_agents_commits_indented)
{
    static const char digest[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    struct wb_changeset cs;
    struct rr_error err;
    char *msg = NULL, *subject;
    size_t len;

    build(&cs);
    /* newest first, as the walk lists them */
    wb_origin_add_commit(&cs.origin, "second", 6, "diff --git a/x b/x\n---\nFrom: evil <e@x>", 39,
                         &err);
    wb_origin_add_commit(&cs.origin, "first", 5, "", 0, &err);
    CHECK(wb_commit_message(&cs, NULL, digest, &msg, &len, &err) == 0);
    subject = msg ? wb_commit_subject(msg) : NULL;
    CHECK(subject && strcmp(subject, "first") == 0);
    CHECK(msg && strstr(msg, "\n* first\n\n* second\n\n    diff --git a/x b/x\n    ---\n"
                             "    From: evil <e@x>\n"));
    CHECK(msg && strstr(msg, "\ndiff") == NULL && strstr(msg, "\n---") == NULL &&
          strstr(msg, "\nFrom") == NULL);
    CHECK(msg && strstr(msg, "Revrun-Review") == NULL);
    free(subject);
    free(msg);
    wb_changeset_free(&cs);
}
