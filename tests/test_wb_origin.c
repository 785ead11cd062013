/* The origin of a change set (the commit and tree the review ran on, the
 * review's id, the agent's commits) is bound by the digest, round-trips
 * through manifest.json, and holds the agent's text only escaped: a
 * manifest carrying raw control bytes, a malformed base or too many commits
 * is refused. gitbase's pure helpers: git's object ids and a commit's tree
 * line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/config.h"
#include "tests/tap.h"
#include "writeback/changeset/manifest.h"
#include "writeback/git/gitbase.h"

#define C1 "0123456789abcdef0123456789abcdef01234567"
#define T1 "89abcdef0123456789abcdef0123456789abcdef"

static void build(struct wb_changeset *cs)
{
    struct rr_error err;
    struct wb_obj none = {0}, a = {.type = WB_T_FILE, .size = 2};

    memset(cs, 0, sizeof(*cs));
    wb_sha256("a\n", 2, a.sha256);
    wb_changeset_add(cs, "a.txt", 5, &none, &a, &err);
    memcpy(cs->origin.base.commit, C1, sizeof(C1));
    memcpy(cs->origin.base.tree, T1, sizeof(T1));
    wb_origin_set_review(&cs->origin, "review-1-2", &err);
    wb_origin_add_commit(&cs->origin, "second", 6, "why\n", 4, &err);
    wb_origin_add_commit(&cs->origin, "first", 5, "", 0, &err);
}

static void m_commit(struct wb_changeset *cs)
{
    cs->origin.base.commit[3] = 'f';
}
static void m_tree(struct wb_changeset *cs)
{
    cs->origin.base.tree[0] = '0';
}
static void m_review(struct wb_changeset *cs)
{
    cs->origin.review[0] = 'R';
}
static void m_subject(struct wb_changeset *cs)
{
    cs->origin.commits[1].subject[0] = 'F';
}
static void m_body(struct wb_changeset *cs)
{
    cs->origin.commits[0].body[0] = 'W';
}
static void m_no_base(struct wb_changeset *cs)
{
    memset(&cs->origin.base, 0, sizeof(cs->origin.base));
}

TEST(digest_binds_the_origin)
{
    void (*const muts[])(struct wb_changeset *) = {m_commit,  m_tree, m_review,
                                                   m_subject, m_body, m_no_base};

    for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
        unsigned char d1[WB_SHA256_LEN], d2[WB_SHA256_LEN];
        struct wb_changeset cs;
        struct rr_error err;
        build(&cs);
        wb_changeset_digest(&cs, d1, &err);
        muts[i](&cs);
        wb_changeset_digest(&cs, d2, &err);
        if (!CHECK(memcmp(d1, d2, sizeof(d1)) != 0))
            tap_note("mutation %zu left the digest alone", i);
        wb_changeset_free(&cs);
    }
}

static int write_text(int dfd, const char *text)
{
    int fd = openat(dfd, WB_MANIFEST_NAME, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

    if (fd >= 0)
        close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int load(int dfd, struct wb_changeset *cs, unsigned char d[WB_SHA256_LEN])
{
    struct rr_writeback_policy pol;
    struct rr_error err;
    int r;

    writeback_policy_defaults(&pol, &err);
    memset(cs, 0, sizeof(*cs));
    r = wb_manifest_load(dfd, &pol, cs, d, &err);
    if (r < 0)
        tap_note("load: %s", err.msg);
    writeback_policy_free(&pol);
    wb_changeset_free(cs);
    return r;
}

/* doc with the first from replaced by to, the digest recomputed so that
 * only the content check can refuse it. */
static char *forge(const char *doc, const char *from, const char *to)
{
    const char *at = strstr(doc, from);
    size_t n = strlen(doc) + strlen(to) + 1;
    char *out = malloc(n);

    if (at == NULL || out == NULL) {
        free(out);
        return NULL;
    }
    snprintf(out, n, "%.*s%s%s", (int)(at - doc), doc, to, at + strlen(from));
    return out;
}

TEST(manifest_round_trips_the_origin_and_refuses_raw_text)
{
    char dir[] = "/tmp/wborigin.XXXXXX";
    struct wb_changeset cs, back;
    unsigned char d1[WB_SHA256_LEN], d2[WB_SHA256_LEN];
    struct rr_error err;
    char *doc = NULL, *evil;
    size_t len;
    int dfd;

    CHECK(mkdtemp(dir) != NULL);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    build(&cs);
    CHECK(wb_manifest_render(&cs, &doc, &len, d1, &err) == 0);
    CHECK(write_text(dfd, doc) == 0);
    memset(&back, 0, sizeof(back));
    {
        struct rr_writeback_policy pol;
        writeback_policy_defaults(&pol, &err);
        CHECK(wb_manifest_load(dfd, &pol, &back, d2, &err) == 0);
        writeback_policy_free(&pol);
    }
    CHECK(memcmp(d1, d2, sizeof(d1)) == 0);
    CHECK(strcmp(back.origin.base.commit, C1) == 0 && strcmp(back.origin.base.tree, T1) == 0);
    CHECK(back.origin.review && strcmp(back.origin.review, "review-1-2") == 0);
    CHECK(back.origin.n_commits == 2 && strcmp(back.origin.commits[0].body, "why") == 0);
    wb_changeset_free(&back);

    /* raw ESC in a subject; a base that is not hex; an unknown key in base;
     * a review id that is not one: refused before any digest is compared */
    static const char *const forged[][2] = {
        {"\"second\"", "\"sec\\u001bond\""},
        {"\"" C1 "\"", "\""
                       "0123456789ABCDEF0123456789abcdef01234567"
                       "\""},
        {"\"tree\"", "\"trees\""},
        {"\"review-1-2\"", "\"../x\""},
        {"\"why\"", "\"wh\\ry\""},
    };
    for (size_t i = 0; i < sizeof(forged) / sizeof(forged[0]); i++) {
        evil = forge(doc, forged[i][0], forged[i][1]);
        if (!CHECK(evil && write_text(dfd, evil) == 0 && load(dfd, &back, d2) < 0))
            tap_note("forgery %zu loaded", i);
        free(evil);
    }
    free(doc);
    wb_changeset_free(&cs);
    unlinkat(dfd, WB_MANIFEST_NAME, 0);
    close(dfd);
    rmdir(dir);
}

TEST(agent_text_is_kept_escaped)
{
    static const char subject[] = "fix \x1b[31mred\x1b[0m \xe2\x80\xae txt.exe";
    static const char body[] = "line one\r\n::set-output name=x::y\n\n##[error]boom\n\n\n  \n";
    struct wb_origin o = {0};
    struct rr_error err;

    CHECK(wb_origin_add_commit(&o, subject, sizeof(subject) - 1, body, sizeof(body) - 1, &err) ==
          0);
    CHECK(strchr(o.commits[0].subject, '\x1b') == NULL);
    CHECK(strstr(o.commits[0].subject, "\\x1b[31m") != NULL);
    CHECK(strstr(o.commits[0].subject, "\xe2\x80\xae") == NULL);
    CHECK(strchr(o.commits[0].body, '\r') == NULL);
    CHECK(strstr(o.commits[0].body, "\n::") == NULL && strstr(o.commits[0].body, "##[") == NULL);
    /* trailing blank lines dropped */
    CHECK(o.commits[0].body[strlen(o.commits[0].body) - 1] != '\n');
    CHECK(wb_origin_text_ok(o.commits[0].subject, strlen(o.commits[0].subject), false,
                            WB_SUBJECT_TEXT_MAX));
    CHECK(wb_origin_text_ok(o.commits[0].body, strlen(o.commits[0].body), true, WB_BODY_TEXT_MAX));
    CHECK(!wb_origin_text_ok(subject, sizeof(subject) - 1, false, WB_SUBJECT_TEXT_MAX));
    CHECK(!wb_origin_text_ok("a\nb", 3, false, WB_SUBJECT_TEXT_MAX));
    CHECK(!wb_origin_text_ok("a\rb", 3, true, WB_BODY_TEXT_MAX));
    CHECK(!wb_origin_text_ok("a\\b", 3, true, 2));
    wb_origin_free(&o);
}

TEST(a_long_body_is_cut_with_a_marker)
{
    char *body = malloc(WB_BODY_MAX);
    struct wb_origin o = {0};
    struct rr_error err;

    memset(body, '\x01', WB_BODY_MAX); /* each escapes to four bytes */
    CHECK(wb_origin_add_commit(&o, "s", 1, body, WB_BODY_MAX, &err) == 0);
    CHECK(strlen(o.commits[0].body) <= WB_BODY_TEXT_MAX);
    CHECK(strstr(o.commits[0].body, "[truncated]") != NULL);
    CHECK(wb_origin_text_ok(o.commits[0].body, strlen(o.commits[0].body), true, WB_BODY_TEXT_MAX));
    for (size_t i = 1; i < WB_ORIGIN_COMMITS; i++)
        CHECK(wb_origin_add_commit(&o, "s", 1, "", 0, &err) == 0);
    CHECK(wb_origin_add_commit(&o, "s", 1, "", 0, &err) < 0);
    wb_origin_free(&o);
    free(body);
}

TEST(git_object_ids_and_the_tree_line)
{
    char hex[WB_OID_HEX], tree[WB_OID_HEX];
    static const char commit[] = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
                                 "author a <a@x> 0 +0000\ncommitter a <a@x> 0 +0000\n\nm\n";

    wb_git_object_id("blob", "", 0, hex);
    CHECK(strcmp(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391") == 0);
    wb_git_object_id("tree", "", 0, hex);
    CHECK(strcmp(hex, "4b825dc642cb6eb9a060e54bf8d69288fbee4904") == 0);
    CHECK(wb_commit_tree(commit, sizeof(commit) - 1, tree));
    CHECK(strcmp(tree, "4b825dc642cb6eb9a060e54bf8d69288fbee4904") == 0);
    CHECK(!wb_commit_tree("tree 4B825DC642CB6EB9A060E54BF8D69288FBEE4904\n", 46, tree));
    CHECK(!wb_commit_tree("parent 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n", 48, tree));
    CHECK(!wb_commit_tree("tree 4b825dc6", 13, tree));
    CHECK(wb_oid_hex_ok(C1, 40) && !wb_oid_hex_ok(C1, 39) && !wb_oid_hex_ok("g" C1, 40));
}
