/* The digest binds everything apply does; a manifest that does not
 * round-trip, or whose digest does not match what it says, is refused. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/config.h"
#include "tests/tap.h"
#include "writeback/changeset/manifest.h"
#include "writeback/rules/rules.h"

static struct wb_obj file_obj(const char *text, bool exec)
{
    struct wb_obj o = {.type = WB_T_FILE, .exec = exec, .size = strlen(text)};
    wb_sha256(text, o.size, o.sha256);
    return o;
}

static struct wb_obj link_obj(char *target)
{
    struct wb_obj o = {.type = WB_T_SYMLINK, .target = target, .size = strlen(target)};
    wb_sha256(target, o.size, o.sha256);
    return o;
}

/* One change of each shape. */
static void build(struct wb_changeset *cs)
{
    struct rr_error err;
    struct wb_obj none = {0}, dir = {.type = WB_T_DIR};
    struct wb_obj a = file_obj("a\n", false), b = file_obj("b\n", true);
    struct wb_obj l1 = link_obj("x"), l2 = link_obj("y");

    memset(cs, 0, sizeof(*cs));
    wb_changeset_add(cs, "add", 3, &none, &a, &err);
    wb_changeset_add(cs, "mod", 3, &a, &b, &err);
    wb_changeset_add(cs, "del", 3, &a, &none, &err);
    wb_changeset_add(cs, "lnk", 3, &l1, &l2, &err);
    wb_changeset_add(cs, "dir", 3, &none, &dir, &err);
    wb_changeset_add(cs, "rep", 3, &dir, &l1, &err);
    wb_changeset_sort(cs);
}

static bool digest_changes(struct wb_changeset *cs, void (*mutate)(struct wb_changeset *))
{
    unsigned char d1[WB_SHA256_LEN], d2[WB_SHA256_LEN];
    struct rr_error err;

    wb_changeset_digest(cs, d1, &err);
    mutate(cs);
    wb_changeset_digest(cs, d2, &err);
    return memcmp(d1, d2, sizeof(d1)) != 0;
}

static struct wb_change *at(struct wb_changeset *cs, const char *p)
{
    return &cs->v[wb_changeset_find(cs, p, strlen(p))];
}

static void m_path(struct wb_changeset *cs)
{
    at(cs, "add")->path[0] = 'b';
}
static void m_exec(struct wb_changeset *cs)
{
    at(cs, "add")->new.exec = true;
}
static void m_size(struct wb_changeset *cs)
{
    at(cs, "add")->new.size++;
}
static void m_sha(struct wb_changeset *cs)
{
    at(cs, "mod")->new.sha256[5] ^= 1;
}
static void m_base_sha(struct wb_changeset *cs)
{
    at(cs, "mod")->base.sha256[0] ^= 1;
}
static void m_base_exec(struct wb_changeset *cs)
{
    at(cs, "mod")->base.exec = true;
}
static void m_target(struct wb_changeset *cs)
{
    at(cs, "lnk")->new.target[0] = 'z';
}
static void m_base_target(struct wb_changeset *cs)
{
    at(cs, "lnk")->base.target[0] = 'z';
}
static void m_kind(struct wb_changeset *cs)
{
    at(cs, "del")->kind = WB_DIR_DELETE;
}
static void m_base_type(struct wb_changeset *cs)
{
    at(cs, "rep")->base.type = WB_T_FILE;
}

TEST(digest_binds_every_field_apply_uses)
{
    void (*const muts[])(struct wb_changeset *) = {m_path,     m_exec,      m_size,   m_sha,
                                                   m_base_sha, m_base_exec, m_target, m_base_target,
                                                   m_kind,     m_base_type};

    for (size_t i = 0; i < sizeof(muts) / sizeof(muts[0]); i++) {
        struct wb_changeset cs;
        build(&cs);
        if (!CHECK(digest_changes(&cs, muts[i])))
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
    return r;
}

TEST(manifest_round_trip_and_refusals)
{
    char dir[] = "/tmp/wbman.XXXXXX";
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
    CHECK(load(dfd, &back, d2) == 0);
    CHECK(memcmp(d1, d2, sizeof(d1)) == 0 && back.n == cs.n);
    wb_changeset_free(&back);

    /* an unknown key */
    evil = strdup(doc);
    memcpy(strstr(evil, "\"kind\""), "\"kinx\"", 6);
    CHECK(write_text(dfd, evil) == 0 && load(dfd, &back, d2) < 0);
    wb_changeset_free(&back);
    free(evil);
    /* a kind that does not turn base into new */
    evil = strdup(doc);
    memcpy(strstr(evil, "\"delete\""), "\"modify\"", 8);
    CHECK(write_text(dfd, evil) == 0 && load(dfd, &back, d2) < 0);
    wb_changeset_free(&back);
    free(evil);
    /* a changed value: the recorded digest no longer fits */
    evil = strdup(doc);
    memcpy(strstr(evil, "\"100755\""), "\"100644\"", 8);
    CHECK(write_text(dfd, evil) == 0 && load(dfd, &back, d2) < 0);
    wb_changeset_free(&back);
    free(evil);

    free(doc);
    wb_changeset_free(&cs);
    unlinkat(dfd, WB_MANIFEST_NAME, 0);
    close(dfd);
    rmdir(dir);
}

TEST(recheck_refuses_what_vetting_would)
{
    struct rr_writeback_policy pol;
    struct rr_error err;
    struct wb_obj none = {0}, a = file_obj("a", false), out = link_obj("../../x");
    struct wb_changeset cs = {0};

    writeback_policy_defaults(&pol, &err);
    wb_changeset_add(&cs, ".git/hooks/post-checkout", 24, &none, &a, &err);
    CHECK(wb_rules_recheck(&cs, &pol, &err) < 0);
    wb_changeset_free(&cs);
    memset(&cs, 0, sizeof(cs));
    wb_changeset_add(&cs, "d/l", 3, &none, &out, &err);
    CHECK(wb_rules_recheck(&cs, &pol, &err) < 0);
    wb_changeset_free(&cs);
    memset(&cs, 0, sizeof(cs));
    wb_changeset_add(&cs, ".gitmodules", 11, &none, &a, &err);
    CHECK(wb_rules_recheck(&cs, &pol, &err) < 0);
    wb_changeset_free(&cs);
    memset(&cs, 0, sizeof(cs));
    wb_changeset_add(&cs, "fine.txt", 8, &none, &a, &err);
    CHECK(wb_rules_recheck(&cs, &pol, &err) == 0);
    wb_changeset_free(&cs);
    writeback_policy_free(&pol);
}

/* The net in vetting: whatever reached it unrefused that apply would refuse
 * (here a change under .git the rules never saw) is refused as
 * "apply-recheck"; a set the rules refused already gets no second note, and
 * a clean one none at all. */
TEST(vetting_ends_with_apply_recheck_net)
{
    struct rr_writeback_policy pol;
    struct rr_error err;
    struct wb_obj none = {0}, a = file_obj("a", false);
    struct wb_scan s = {0};

    writeback_policy_defaults(&pol, &err);
    s.pol = &pol;
    wb_changeset_add(&s.cs, ".git/hooks/post-checkout", 24, &none, &a, &err);
    CHECK(wb_rules_apply_net(&s, &err) == 0);
    CHECK(s.cs.refused.n == 1);
    CHECK(s.cs.refused.n == 1 && strcmp(s.cs.refused.v[0].code, "apply-recheck") == 0);
    CHECK(s.cs.refused.n == 1 && strstr(s.cs.refused.v[0].detail, "apply would refuse the set") &&
          strstr(s.cs.refused.v[0].detail, ".git/hooks/post-checkout"));
    /* refused already: left as it is */
    CHECK(wb_rules_apply_net(&s, &err) == 0);
    CHECK(s.cs.refused.n == 1);
    wb_changeset_free(&s.cs);
    memset(&s.cs, 0, sizeof(s.cs));
    wb_changeset_add(&s.cs, "fine.txt", 8, &none, &a, &err);
    CHECK(wb_rules_apply_net(&s, &err) == 0);
    CHECK(s.cs.refused.n == 0);
    wb_changeset_free(&s.cs);
    writeback_policy_free(&pol);
}

/* A forged manifest with the spellings vetting refuses: apply refuses too. */
TEST(recheck_refuses_other_spellings_and_backslashes)
{
    static const char *const paths[] = {
        "gitmod~1", ".GitModules", "sub/.gitmodules::$DATA", ".git\\hooks\\post-checkout",
        "run.sh.",
    };
    struct rr_writeback_policy pol;
    struct rr_error err;
    struct wb_obj none = {0}, a = file_obj("a", false), win = link_obj("..\\..\\x");
    struct wb_changeset cs = {0};

    writeback_policy_defaults(&pol, &err);
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        memset(&cs, 0, sizeof(cs));
        wb_changeset_add(&cs, paths[i], strlen(paths[i]), &none, &a, &err);
        if (!CHECK(wb_rules_recheck(&cs, &pol, &err) < 0))
            tap_note("accepted: %s", paths[i]);
        wb_changeset_free(&cs);
    }
    memset(&cs, 0, sizeof(cs));
    wb_changeset_add(&cs, "l", 1, &none, &win, &err);
    CHECK(wb_rules_recheck(&cs, &pol, &err) < 0);
    wb_changeset_free(&cs);
    writeback_policy_free(&pol);
}

TEST(kind_of)
{
    struct wb_obj none = {0}, dir = {.type = WB_T_DIR};
    struct wb_obj a = file_obj("a", false), ax = file_obj("a", true), b = file_obj("b", false);

    CHECK(wb_kind_of(&none, &a) == WB_ADD);
    CHECK(wb_kind_of(&a, &b) == WB_MODIFY);
    CHECK(wb_kind_of(&a, &ax) == WB_MODE);
    CHECK(wb_kind_of(&a, &a) == -1);
    CHECK(wb_kind_of(&a, &none) == WB_DELETE);
    CHECK(wb_kind_of(&dir, &none) == WB_DIR_DELETE);
    CHECK(wb_kind_of(&none, &dir) == WB_DIR_ADD);
    CHECK(wb_kind_of(&dir, &a) == WB_REPLACE);
    CHECK(wb_kind_of(&dir, &dir) == -1);
    CHECK(wb_digest_parse("sha256:0000000000000000000000000000000000000000000000000000000000000000",
                          a.sha256));
    CHECK(!wb_digest_parse("abc", a.sha256));
}
