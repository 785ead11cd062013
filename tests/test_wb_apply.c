/* apply on plain temporary trees: the verify step's decisions. Faults half
 * way through the commit are driven from outside in writeback_apply.bats. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"
#include "writeback/apply/apply.h"

static int apply_to(struct tree *t, const char *target, struct wb_apply_result *res)
{
    struct wb_source src = {.rootfd = t->scan.upper_fd, .blobs = false};
    struct wb_target to = {.fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
                           .path = target, .journal = -1};
    struct rr_error err;
    int r = wb_apply(&t->scan.cs, &src, &to, res, &err);

    close(to.fd);
    if (r < 0)
        tap_note("apply: %s", err.msg);
    return r;
}

static void copy_lower(struct tree *t, char *target, size_t len)
{
    char cmd[512];

    snprintf(target, len, "%s/target", t->root);
    snprintf(cmd, sizeof(cmd), "cp -a %s/lower %s", t->root, target);
    CHECK(system(cmd) == 0);
}

static bool file_is(const char *dir, const char *rel, const char *text)
{
    char p[4096], buf[256] = {0};
    FILE *f;
    size_t n;

    snprintf(p, sizeof(p), "%s/%s", dir, rel);
    if ((f = fopen(p, "r")) == NULL)
        return false;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    return n == strlen(text) && memcmp(buf, text, n) == 0;
}

TEST(apply_places_and_removes)
{
    struct tree t;
    struct wb_apply_result res;
    char target[128], p[4096];
    struct stat st;

    tree_init(&t);
    tree_file(&t, "lower", "mod", "old\n");
    tree_file(&t, "lower", "d/x", "x\n");
    tree_file(&t, "upper", "mod", "new\n");
    tree_file(&t, "upper", ".wh.d", "");
    tree_file(&t, "upper", "n/new", "n\n");
    tree_path(&t, "upper", "n/new", p, sizeof(p));
    chmod(p, 0700);
    CHECK(tree_vet(&t, WB_FORMAT_FUSE_OVERLAYFS) == 0);
    copy_lower(&t, target, sizeof(target));
    CHECK(apply_to(&t, target, &res) == 0);
    CHECK(file_is(target, "mod", "new\n"));
    CHECK(file_is(target, "n/new", "n\n"));
    snprintf(p, sizeof(p), "%s/d", target);
    CHECK(lstat(p, &st) < 0);
    snprintf(p, sizeof(p), "%s/n/new", target);
    CHECK(lstat(p, &st) == 0 && (st.st_mode & 07777) == 0755); /* only the exec bit carried */
    wb_apply_result_free(&res);
    tree_free(&t);
}

TEST(apply_refuses_a_target_that_moved_on)
{
    struct tree t;
    struct wb_apply_result res;
    char target[128], p[4096];

    tree_init(&t);
    tree_file(&t, "lower", "mod", "old\n");
    tree_file(&t, "upper", "mod", "new\n");
    tree_file(&t, "upper", "add", "a\n");
    CHECK(tree_vet(&t, WB_FORMAT_FUSE_OVERLAYFS) == 0);
    copy_lower(&t, target, sizeof(target));
    snprintf(p, sizeof(p), "%s/add", target);
    close(open(p, O_CREAT | O_WRONLY, 0644));
    CHECK(apply_to(&t, target, &res) == 1);
    CHECK(res.conflicts.n == 1 && strcmp(res.conflicts.v[0].path, "add") == 0);
    CHECK(file_is(target, "mod", "old\n"));
    wb_apply_result_free(&res);
    tree_free(&t);
}

TEST(apply_refuses_a_manifest_whose_directories_do_not_hold_its_paths)
{
    struct tree t;
    struct wb_apply_result res;
    char target[128];
    struct wb_obj none = {0}, file = {.type = WB_T_FILE};
    struct rr_error err;

    tree_init(&t);
    tree_dir(&t, "upper", "newdir");
    CHECK(tree_vet(&t, WB_FORMAT_FUSE_OVERLAYFS) == 0);
    /* a delete below a directory the set creates: no merged tree has that */
    CHECK(wb_changeset_add(&t.scan.cs, "newdir/x", 8, &file, &none, &err) == 0);
    wb_changeset_sort(&t.scan.cs);
    copy_lower(&t, target, sizeof(target));
    CHECK(apply_to(&t, target, &res) == 1);
    wb_apply_result_free(&res);
    tree_free(&t);
}
