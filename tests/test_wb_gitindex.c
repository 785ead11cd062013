/* revrun's own index reader (writeback/git/gitindex.c): lookups in indexes real
 * git wrote (v2; v3 with intent-to-add and skip-worktree entries; v4 across
 * many restart blocks), and hostile indexes refused or answered without
 * harm: truncated at every length, a count past what the file holds, a path
 * length past the end, out of order, a v4 strip past the previous path, an
 * extension past the end, a 200,000-level cache tree (skipped, never
 * parsed), and a v4 index whose paths expand ~60x (read in bounded memory). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/git/gitindex.h"

struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        if ((b->p = realloc(b->p, b->cap)) == NULL)
            abort();
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void put32(struct buf *b, uint32_t v)
{
    unsigned char c[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    put(b, c, 4);
}

static void header(struct buf *b, uint32_t version, uint32_t n)
{
    put(b, "DIRC", 4);
    put32(b, version);
    put32(b, n);
}

/* A v2 entry: zero stat data and id, flags = the path length (capped). */
static void entry2(struct buf *b, const char *path, unsigned namelen)
{
    char fixed[62] = {0};
    size_t len = strlen(path), pad = ((62 + len + 8) & ~(size_t)7) - 62 - len;
    static const char zeros[8];

    fixed[24] = (char)0x81; /* mode 100644 */
    fixed[25] = (char)0xa4;
    fixed[60] = (char)(namelen >> 8);
    fixed[61] = (char)namelen;
    put(b, fixed, 62);
    put(b, path, len);
    put(b, zeros, pad);
}

/* A v4 entry: strip bytes of the previous path, then suffix. */
static void entry4(struct buf *b, unsigned strip, const char *suffix)
{
    char fixed[62] = {0};
    unsigned char v = (unsigned char)strip; /* < 128 here */

    fixed[60] = 0x0f;
    fixed[61] = (char)0xff;
    put(b, fixed, 62);
    put(b, &v, 1);
    put(b, suffix, strlen(suffix) + 1);
}

static void trailer(struct buf *b)
{
    static const char sum[20];
    put(b, sum, 20);
}

/* Parse a copy of b: 1, 0 (refused, why non-empty) or -1. */
static int parse(const struct buf *b, struct wb_gitindex **ix, char *why, size_t wlen)
{
    struct rr_error err = {0};
    char *copy = malloc(b->len ? b->len : 1);

    if (copy == NULL)
        abort();
    memcpy(copy, b->p, b->len);
    *ix = NULL;
    return wb_gitindex_parse(copy, b->len, ix, why, wlen, &err);
}

static bool has(const struct wb_gitindex *ix, const char *p)
{
    return wb_gitindex_has(ix, p, strlen(p));
}

static bool below(const struct wb_gitindex *ix, const char *p)
{
    return wb_gitindex_has_below(ix, p, strlen(p));
}

/* ---- indexes real git wrote ---- */

static char repo[64];

/* cmd run in the repository (git with no config of the user's). */
static int sh(const char *cmd)
{
    char line[4096];

    snprintf(line, sizeof(line),
             "cd %s && export HOME=%s GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t "
             "GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t && %s",
             repo, repo, cmd);
    return system(line);
}

static bool git_repo(void)
{
    snprintf(repo, sizeof(repo), "/tmp/wbidx.XXXXXX");
    if (mkdtemp(repo) == NULL)
        return false;
    return sh("git init -q . && mkdir -p src dir/sub && echo a > a.txt && "
              "echo l > src/lib.c && echo x > dir/sub/x && echo y > a-b && "
              "git add a.txt src/lib.c dir/sub/x a-b") == 0;
}

static struct wb_gitindex *git_index(unsigned want_version)
{
    struct buf b = {0};
    char path[128], why[200];
    struct wb_gitindex *ix = NULL;
    FILE *f;
    size_t n;
    char chunk[65536];

    snprintf(path, sizeof(path), "%s/.git/index", repo);
    if ((f = fopen(path, "rb")) == NULL)
        return NULL;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        put(&b, chunk, n);
    fclose(f);
    if (b.len < 8 || (unsigned char)b.p[7] != want_version) {
        tap_note("git wrote index version %d, not %u", b.len >= 8 ? b.p[7] : -1, want_version);
        free(b.p);
        return NULL;
    }
    if (parse(&b, &ix, why, sizeof(why)) != 1)
        tap_note("refused: %s", why);
    free(b.p);
    return ix;
}

static void common_lookups(const struct wb_gitindex *ix)
{
    CHECK(has(ix, "a.txt"));
    CHECK(has(ix, "a-b"));
    CHECK(has(ix, "src/lib.c"));
    CHECK(has(ix, "dir/sub/x"));
    CHECK(!has(ix, "a.tx"));
    CHECK(!has(ix, "a.txt2"));
    CHECK(!has(ix, "src"));
    CHECK(!has(ix, "b.txt"));
    CHECK(!has(ix, "zzz"));
    CHECK(!has(ix, "0"));
    CHECK(below(ix, "src"));
    CHECK(below(ix, "dir"));
    CHECK(below(ix, "dir/sub"));
    CHECK(!below(ix, "di"));
    CHECK(!below(ix, "a"));
    CHECK(!below(ix, "a.txt"));
    CHECK(!below(ix, "dir/su"));
}

TEST(real_git_v2_v3_v4)
{
    struct wb_gitindex *ix;

    if (!CHECK(git_repo()))
        return;
    CHECK(sh("git update-index --index-version 2") == 0);
    if (CHECK((ix = git_index(2)) != NULL)) {
        common_lookups(ix);
        CHECK(wb_gitindex_count(ix) == 4);
    }
    wb_gitindex_free(ix);

    /* Extended flags: an intent-to-add entry and a skip-worktree one. */
    CHECK(sh("echo n > new.txt && git add -N new.txt && "
             "git update-index --skip-worktree a.txt && git update-index --index-version 3") == 0);
    if (CHECK((ix = git_index(3)) != NULL)) {
        common_lookups(ix);
        CHECK(has(ix, "new.txt"));
        CHECK(wb_gitindex_count(ix) == 5);
    }
    wb_gitindex_free(ix);

    /* v4 across several restart blocks: 300 files in two directories. */
    CHECK(sh("for i in $(seq 100 399); do echo $i > src/f$i.c; echo $i > dir/sub/g$i; "
             "done && git add src dir && git update-index --index-version 4") == 0);
    if (CHECK((ix = git_index(4)) != NULL)) {
        char p[64];
        bool all = true, none = true;
        common_lookups(ix);
        CHECK(has(ix, "new.txt"));
        CHECK(wb_gitindex_count(ix) == 605);
        for (int i = 100; i < 400; i++) {
            snprintf(p, sizeof(p), "src/f%d.c", i);
            all &= has(ix, p);
            snprintf(p, sizeof(p), "dir/sub/g%d", i);
            all &= has(ix, p);
            snprintf(p, sizeof(p), "src/f%d.d", i);
            none &= !has(ix, p);
            snprintf(p, sizeof(p), "dir/sub/g%d0", i);
            none &= !has(ix, p);
        }
        CHECK(all);
        CHECK(none);
    }
    wb_gitindex_free(ix);
    sh("rm -rf \"$PWD\"");
}

/* ---- hostile indexes ---- */

static void three(struct buf *b, uint32_t version)
{
    header(b, version, 3);
    entry2(b, "a", 1);
    entry2(b, "b/c", 3);
    entry2(b, "d", 1);
    trailer(b);
}

TEST(truncated_at_every_length)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];
    bool refused = true;

    three(&b, 2);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 1);
    CHECK(has(ix, "b/c") && !has(ix, "b"));
    wb_gitindex_free(ix);
    /* Every cut inside the entries is refused (the trailer is then a part
     * of the last entry, never read past). */
    for (size_t cut = 0; cut < b.len - 20; cut++) {
        struct buf c = {b.p, cut, cut};
        int r = parse(&c, &ix, why, sizeof(why));
        wb_gitindex_free(ix);
        if (r != 0 || why[0] == '\0') {
            tap_note("cut at %zu: %d", cut, r);
            refused = false;
        }
    }
    CHECK(refused);
    free(b.p);
}

TEST(count_past_the_file)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];

    three(&b, 2);
    b.p[8] = b.p[9] = b.p[10] = b.p[11] = (char)0xff;
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    CHECK(strstr(why, "more than") != NULL);
    b.p[8] = b.p[9] = b.p[10] = 0;
    b.p[11] = 4; /* one more than there is */
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
}

TEST(path_length_past_the_end)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];

    header(&b, 2, 1);
    entry2(&b, "abc", 0xffe);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
    /* 0xfff: as long as the NUL says; none before the end */
    b = (struct buf){0};
    header(&b, 2, 1);
    entry2(&b, "abc", 0xfff);
    memset(b.p + b.len - 7, 'x', 7);
    trailer(&b);
    memset(b.p + b.len - 20, 'y', 20);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
    /* a NUL inside the declared length */
    b = (struct buf){0};
    header(&b, 2, 1);
    entry2(&b, "abc", 2);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
}

TEST(out_of_order_and_bad_versions)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];

    header(&b, 2, 2);
    entry2(&b, "b", 1);
    entry2(&b, "a", 1);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    CHECK(strstr(why, "out of order") != NULL);
    free(b.p);
    for (uint32_t v = 0; v < 8; v++) {
        if (v >= 2 && v <= 4)
            continue;
        b = (struct buf){0};
        three(&b, v);
        CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
        free(b.p);
    }
    b = (struct buf){0};
    put(&b, "DIRX", 4);
    put32(&b, 2);
    put32(&b, 0);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
}

TEST(v4_strip_past_the_previous_path)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];

    header(&b, 4, 2);
    entry4(&b, 0, "ab");
    entry4(&b, 3, "c");
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
    b = (struct buf){0};
    header(&b, 4, 2);
    entry4(&b, 0, "ab");
    entry4(&b, 1, "c");
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 1);
    CHECK(has(ix, "ab") && has(ix, "ac") && !has(ix, "a") && !has(ix, "abc"));
    wb_gitindex_free(ix);
    free(b.p);
}

TEST(extension_past_the_end)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200];

    header(&b, 2, 1);
    entry2(&b, "a", 1);
    put(&b, "TREE", 4);
    put32(&b, 1000);
    put(&b, "xx", 2);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    CHECK(strstr(why, "extension") != NULL);
    free(b.p);
}

/* review3 R7: libgit2 recursed once per level of this. */
TEST(deep_cache_tree_is_skipped)
{
    struct buf b = {0}, ext = {0};
    struct wb_gitindex *ix;
    char why[200];

    for (int i = 0; i < 200000; i++)
        put(&ext, "d\0-1 1\n", 7);
    put(&ext, "d\0-1 0\n", 7);
    header(&b, 2, 1);
    entry2(&b, "x.o", 3);
    put(&b, "TREE", 4);
    put32(&b, (uint32_t)ext.len);
    put(&b, ext.p, ext.len);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 1);
    CHECK(has(ix, "x.o"));
    wb_gitindex_free(ix);
    free(b.p);
    free(ext.p);
}

/* review3 R3: ~66 bytes an entry, each a path of ~4000 bytes. Read with a
 * 4 KiB path kept per 64 entries: the restart arena stays under the file's
 * size (the bats test measures revrun's peak memory on the same shape). */
TEST(v4_expansion_bomb)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200], first[4001], last[4001], sfx[5];
    unsigned n = 20000;

    memset(first, 'a', 3996);
    memcpy(first + 3996, "AAAA", 5);
    header(&b, 4, n);
    entry4(&b, 0, first);
    memcpy(last, first, 4001);
    for (unsigned i = 1; i < n; i++) {
        snprintf(sfx, sizeof(sfx), "%c%c%c%c", 'A' + (i / 17576) % 26, 'A' + (i / 676) % 26,
                 'A' + (i / 26) % 26, 'A' + i % 26);
        entry4(&b, 4, sfx);
        memcpy(last + 3996, sfx, 5);
    }
    trailer(&b);
    CHECK(b.len < 1400000); /* ~80 MB of paths */
    CHECK(parse(&b, &ix, why, sizeof(why)) == 1);
    CHECK(has(ix, first));
    CHECK(has(ix, last));
    last[3999] = 'Z';
    CHECK(!has(ix, last));
    CHECK(!below(ix, "a"));
    wb_gitindex_free(ix);
    free(b.p);
}

TEST(path_over_4096_refused)
{
    struct buf b = {0};
    struct wb_gitindex *ix;
    char why[200], *big = malloc(5000);

    memset(big, 'p', 4999);
    big[4999] = '\0';
    header(&b, 2, 1);
    entry2(&b, big, 0xfff);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
    b = (struct buf){0};
    big[4000] = '\0'; /* v4: 4000 kept, then 97 more */
    header(&b, 4, 2);
    entry4(&b, 0, big);
    memset(big, 'q', 97);
    big[97] = '\0';
    entry4(&b, 0, big);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 0);
    free(b.p);
    b = (struct buf){0};
    big[96] = '\0'; /* 4096: the most */
    memset(big + 100, 'p', 4000);
    big[4100] = '\0';
    header(&b, 4, 2);
    entry4(&b, 0, big + 100);
    entry4(&b, 0, big);
    trailer(&b);
    CHECK(parse(&b, &ix, why, sizeof(why)) == 1);
    wb_gitindex_free(ix);
    free(b.p);
    free(big);
}
