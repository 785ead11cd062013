#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "writeback/names/resolve.h"

/* A merged tree as a table: path, kind, target. */
struct entry {
    const char *path;
    enum wb_node_kind kind;
    const char *target;
};

static const struct entry tree[] = {
    {"a", WB_N_DIR, NULL},         {"a/b", WB_N_DIR, NULL},        {"a/b/f", WB_N_FILE, NULL},
    {"a/up", WB_N_SYMLINK, ".."},  /* a/up -> the top */
    {"a/self", WB_N_SYMLINK, "."}, /* a/self -> a */
    {"a/deep", WB_N_SYMLINK, "b"}, /* a/deep -> a/b */
    {"abs", WB_N_SYMLINK, "/etc"}, {"loop", WB_N_SYMLINK, "loop"}, {"f", WB_N_FILE, NULL},
};

static int lookup(void *ctx, const char *path, size_t len, struct wb_node *out,
                  struct rr_error *err)
{
    (void)ctx;
    (void)err;
    out->kind = WB_N_ABSENT;
    out->target = NULL;
    for (size_t i = 0; i < sizeof(tree) / sizeof(tree[0]); i++) {
        if (strlen(tree[i].path) == len && memcmp(tree[i].path, path, len) == 0) {
            out->kind = tree[i].kind;
            if (tree[i].target)
                out->target = strdup(tree[i].target);
        }
    }
    return 0;
}

static enum wb_resolve res_of(const char *link, const char *target, bool with_lookup)
{
    struct rr_error err;
    enum wb_resolve r = WB_RES_INSIDE;

    if (wb_resolve_symlink(link, strlen(link), target, with_lookup ? lookup : NULL, NULL, &r,
                           &err) < 0)
        return (enum wb_resolve) - 1;
    return r;
}

TEST(resolve_lexical)
{
    CHECK(res_of("x", "a/b/f", false) == WB_RES_INSIDE);
    CHECK(res_of("a/x", "../f", false) == WB_RES_INSIDE);
    CHECK(res_of("a/x", "../../f", false) == WB_RES_ESCAPES);
    CHECK(res_of("x", "/etc/passwd", false) == WB_RES_ABSOLUTE);
    CHECK(res_of("x", "./missing/../f", false) == WB_RES_INSIDE);
    CHECK(res_of("x", ".git/config", false) == WB_RES_INTO_GIT);
    CHECK(res_of("x", "sub/.GIT", false) == WB_RES_INTO_GIT);
    CHECK(res_of("a/x", "../.git", false) == WB_RES_INTO_GIT);
}

TEST(resolve_through_other_links)
{
    /* lexically inside, but a/up is the top, so a/up/.. leaves it */
    CHECK(res_of("x", "a/up/..", false) == WB_RES_INSIDE);
    CHECK(res_of("x", "a/up/..", true) == WB_RES_ESCAPES);
    /* a/self is a, so a/self/../.. is above the top */
    CHECK(res_of("x", "a/self/../..", true) == WB_RES_ESCAPES);
    CHECK(res_of("x", "a/deep/..", true) == WB_RES_INSIDE);
    CHECK(res_of("x", "abs/passwd", true) == WB_RES_ABSOLUTE);
    CHECK(res_of("x", "loop", true) == WB_RES_LOOP);
    /* through a file: ENOTDIR, the walk stops inside */
    CHECK(res_of("x", "f/../../..", true) == WB_RES_INSIDE);
    /* through something absent: lexical from there on */
    CHECK(res_of("x", "nothing/../..", true) == WB_RES_ESCAPES);
}
