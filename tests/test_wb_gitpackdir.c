/* The walk over packs on disk (gitpackdir, gitlog): the agent's packed
 * commits listed once each is verified, a forged one not listed, the walk
 * ended by a commit the checkout holds. The pack reader itself, on packs
 * built in memory: test_wb_gitpack.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <git2.h>

#include "tests/tap.h"
#include "tests/test_packbuild.h"
#include "tests/test_wb_tree.h"
#include "writeback/git/gitlog.h"
#include "writeback/git/gitpackdir.h"

static void write_bin(struct tree *t, const char *side, const char *rel, const struct buf *b)
{
    char p[4096];
    FILE *f;

    tree_file(t, side, rel, "");
    tree_path(t, side, rel, p, sizeof(p));
    if ((f = fopen(p, "wb")) == NULL || fwrite(b->b, 1, b->len, f) != b->len || fclose(f) != 0)
        abort();
}

struct commits {
    char base[41], one[41], two[41];
    char c1[512], c2[512];
};

static void commit_text(char *out, size_t len, const char *parent, const char *subject)
{
    snprintf(out, len,
             "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent %s\n"
             "author agent <agent@localhost> 1700000000 +0000\n"
             "committer agent <agent@localhost> 1700000000 +0000\n\n%s\n\n"
             "a body the two commits share, long enough for a delta to pay\n",
             parent, subject);
}

static void hash(const char *text, char hex[41], unsigned char raw[20])
{
    git_oid id;

    if (git_odb_hash(&id, text, strlen(text), GIT_OBJECT_COMMIT) < 0)
        abort();
    git_oid_tostr(hex, 41, &id);
    memcpy(raw, id.id, 20);
}

/* The checkout at base; the agent's two commits in one pack (the second an
 * OFS_DELTA on the first), its branch moved to the second. forge: the
 * second's bytes changed after its id was taken. */
static void packed_tree(struct tree *t, struct commits *c, bool forge)
{
    unsigned char r1[20], r2[20];
    struct packb pb;
    struct buf idx = {0}, d = {0};
    char line[64];
    uint64_t o1;

    git_libgit2_init();
    memset(c->base, 'b', 40);
    c->base[40] = '\0';
    commit_text(c->c1, sizeof(c->c1), c->base, "agent: one");
    hash(c->c1, c->one, r1);
    commit_text(c->c2, sizeof(c->c2), c->one, "agent: two");
    hash(c->c2, c->two, r2);
    if (forge)
        memcpy(strstr(c->c2, "agent: two"), "agent: TWO", 10);
    git_libgit2_shutdown();
    tree_file(t, "lower", ".git/HEAD", "ref: refs/heads/main\n");
    snprintf(line, sizeof(line), "%s\n", c->base);
    tree_file(t, "lower", ".git/refs/heads/main", line);
    tree_dir(t, "lower", ".git/objects");
    snprintf(line, sizeof(line), "%s\n", c->two);
    tree_file(t, "upper", ".git/refs/heads/main", line);
    packb_init(&pb);
    o1 = packb_obj(&pb, r1, WB_OBJ_COMMIT, c->c1, strlen(c->c1), strlen(c->c1));
    delta_make(&d, strlen(c->c1), 53, c->c2, strlen(c->c2)); /* "tree <id>\nparent " */
    packb_ofs_delta(&pb, r2, o1, &d);
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    write_bin(t, "upper", ".git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.pack",
              &pb.pack);
    write_bin(t, "upper", ".git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.idx",
              &idx);
    packb_free(&pb);
    free(idx.b);
    free(d.b);
}

static int commits_of(struct tree *t, struct wb_gitinfo *gi)
{
    struct rr_error err;

    memset(gi, 0, sizeof(*gi));
    if (wb_git_commits(t->lower, t->upper, WB_FORMAT_OVERLAY, gi, &err) < 0) {
        printf("#   commits: %s\n", err.msg);
        return -1;
    }
    return 0;
}

TEST(packed_commits_are_listed_once_verified)
{
    struct tree t;
    struct commits c;
    struct wb_gitinfo gi;
    char p[4096], q[4096];

    tree_init(&t);
    packed_tree(&t, &c, false);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 2 && !gi.commits_packed && !gi.commits_off_base && !gi.commits_more);
    CHECK(gi.n_commits == 2 && strcmp(gi.commits[0].s, "agent: two") == 0 &&
          strcmp(gi.commits[1].s, "agent: one") == 0);
    wb_gitinfo_free(&gi);

    /* an index over its size cap (sparse): not read, said */
    tree_path(&t, "upper", ".git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.idx",
              p, sizeof(p));
    tree_path(&t, "", "elsewhere.idx", q, sizeof(q));
    CHECK(rename(p, q) == 0);
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    CHECK(fd >= 0 && ftruncate(fd, WB_PACKIDX_FILE_MAX + 1) == 0 && close(fd) == 0);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 0 && gi.commits_packed && strstr(gi.packed_why, "size cap") != NULL);
    wb_gitinfo_free(&gi);
    CHECK(unlink(p) == 0);

    /* a pack without its index: said */
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 0 && gi.commits_packed &&
          strstr(gi.packed_why, "without its index") != NULL);
    wb_gitinfo_free(&gi);

    /* the index a symlink to a good copy: not followed, the pack left out and said */
    CHECK(symlink(q, p) == 0);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 0 && gi.commits_packed && !gi.commits_off_base);
    CHECK(strstr(gi.packed_why, "not a regular file") != NULL);
    wb_gitinfo_free(&gi);

    /* no pack at all: a commit the agent did not write */
    CHECK(unlink(p) == 0);
    tree_path(&t, "upper", ".git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.pack",
              p, sizeof(p));
    CHECK(unlink(p) == 0);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 0 && !gi.commits_packed && gi.commits_off_base);
    wb_gitinfo_free(&gi);
    tree_free(&t);
}

TEST(a_packed_commit_that_does_not_hash_to_its_id_is_not_listed)
{
    struct tree t;
    struct commits c;
    struct wb_gitinfo gi;

    tree_init(&t);
    packed_tree(&t, &c, true);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 0 && gi.commits_packed);
    CHECK(strstr(gi.packed_why, "does not hash to its id") != NULL);
    wb_gitinfo_free(&gi);
    tree_free(&t);
}

TEST(a_commit_the_checkout_holds_ends_the_walk)
{
    unsigned char r1[20];
    struct tree t;
    struct commits c;
    struct wb_gitinfo gi;
    struct packb pb;
    struct buf idx = {0};
    git_oid id;

    /* the checkout's store holds the first commit (its pack): the agent's
     * HEAD is the second, on top of a checkout commit that is not its HEAD */
    tree_init(&t);
    packed_tree(&t, &c, false);
    git_libgit2_init();
    CHECK(git_oid_fromstr(&id, c.one) == 0);
    memcpy(r1, id.id, 20);
    git_libgit2_shutdown();
    packb_init(&pb);
    packb_obj(&pb, r1, WB_OBJ_COMMIT, c.c1, strlen(c.c1), strlen(c.c1));
    packb_end(&pb);
    packb_index(&pb, &idx, 0);
    write_bin(&t, "lower", ".git/objects/pack/pack-aa23456789abcdef0123456789abcdef01234567.pack",
              &pb.pack);
    write_bin(&t, "lower", ".git/objects/pack/pack-aa23456789abcdef0123456789abcdef01234567.idx",
              &idx);
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 1 && gi.commits_off_base && !gi.commits_packed);
    CHECK(gi.n_commits == 1 && strcmp(gi.commits[0].s, "agent: two") == 0);
    wb_gitinfo_free(&gi);

    /* the same as a loose object of the checkout's */
    char p[4096];
    tree_path(&t, "lower", ".git/objects/pack", p, sizeof(p));
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", p);
    CHECK(system(cmd) == 0);
    snprintf(p, sizeof(p), ".git/objects/%.2s/%s", c.one, c.one + 2);
    tree_file(&t, "lower", p, "x");
    CHECK(commits_of(&t, &gi) == 0);
    CHECK(gi.n_commits == 1 && gi.commits_off_base && !gi.commits_packed);
    wb_gitinfo_free(&gi);
    packb_free(&pb);
    free(idx.b);
    tree_free(&t);
}
