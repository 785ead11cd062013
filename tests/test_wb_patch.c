/* The patch: hunks, quoting, and git's binary literal encoding. That git
 * apply takes it is checked against git itself in writeback_apply.bats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tests/test_wb_tree.h"
#include "writeback/patch/binpatch.h"
#include "writeback/patch/myers.h"
#include "writeback/patch/patch.h"

static char *patch_of(struct tree *t)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    struct rr_error err;

    CHECK(tree_vet(t, WB_FORMAT_FUSE_OVERLAYFS) == 0);
    CHECK(wb_patch_write(f, &t->scan, &err) == 0);
    fclose(f);
    return buf;
}

TEST(zlib_stored_and_base85_as_git_reads_them)
{
    size_t zlen;
    unsigned char *z = wb_zlib_stored((const unsigned char *)"hello", 5, &zlen);
    static const unsigned char want[] = {0x78, 0x01, 0x01, 0x05, 0x00, 0xfa, 0xff, 0x68,
                                         0x65, 0x6c, 0x6c, 0x6f, 0x06, 0x2c, 0x02, 0x15};
    char line[80];

    CHECK(zlen == sizeof(want) && memcmp(z, want, zlen) == 0); /* = python zlib level 0 */
    wb_base85_line(z, zlen, line);
    CHECK(strcmp(line, "PcmV+g0Q&!EWo&G31}p*<") == 0);
    free(z);
}

TEST(paths_quoted_like_git)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);

    wb_patch_put_path(f, "a/", "plain/x.c", 9);
    fputc('|', f);
    wb_patch_put_path(f, "b/", "with space", 10);
    fputc('|', f);
    wb_patch_put_path(f, "a/", "q\"\\\xc3\xa9", 5);
    fclose(f);
    CHECK(strcmp(buf, "a/plain/x.c|\"b/with space\"|\"a/q\\\"\\\\\\303\\251\"") == 0);
    free(buf);
}

TEST(hunks_with_context_and_no_newline)
{
    struct tree t;
    char *p;

    tree_init(&t);
    tree_file(&t, "lower", "f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n");
    tree_file(&t, "upper", "f", "1\n2\nTWO\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nend");
    p = patch_of(&t);
    CHECK(strstr(p, "diff --git a/f b/f\nindex ") != NULL);
    CHECK(strstr(p, "--- a/f\n+++ b/f\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+TWO\n 4\n 5\n 6\n") != NULL);
    CHECK(
        strstr(p, "@@ -12,4 +12,4 @@\n 12\n 13\n 14\n-15\n+end\n\\ No newline at end of file\n") !=
        NULL);
    free(p);
    tree_free(&t);
}

TEST(new_deleted_mode_symlink_binary)
{
    struct tree t;
    char *p, path[4096];

    tree_init(&t);
    tree_file(&t, "lower", "gone", "bye\n");
    tree_file(&t, "lower", "x.sh", "echo\n");
    tree_file(&t, "lower", "bin", "a\0b");
    tree_file(&t, "upper", "new", "hi\n");
    tree_file(&t, "upper", ".wh.gone", "");
    tree_file(&t, "upper", "x.sh", "echo\n");
    tree_path(&t, "upper", "x.sh", path, sizeof(path));
    chmod(path, 0755);
    tree_path(&t, "upper", "bin", path, sizeof(path));
    {
        FILE *f = fopen(path, "w");
        fwrite("a\0c", 1, 3, f);
        fclose(f);
    }
    tree_link(&t, "upper", "l", "new");
    p = patch_of(&t);
    CHECK(strstr(p, "diff --git a/new b/new\nnew file mode 100644\n") != NULL);
    CHECK(strstr(p, "diff --git a/gone b/gone\ndeleted file mode 100644\n") != NULL);
    CHECK(strstr(p, "diff --git a/x.sh b/x.sh\nold mode 100644\nnew mode 100755\n") != NULL);
    CHECK(strstr(p, "new file mode 120000\n") != NULL);
    CHECK(strstr(p, "+new\n\\ No newline at end of file\n") != NULL);
    CHECK(strstr(p, "GIT binary patch\nliteral 3\n") != NULL);
    free(p);
    tree_free(&t);
}

TEST(myers_over_its_cap_still_diffs_right)
{
    enum { N = WB_MYERS_MAX_D + 500 };
    char *a = malloc(N * 8), *b = malloc(N * 8);
    struct wb_line *la, *lb;
    struct wb_edit *e;
    size_t na, nb, ne, dels = 0, ins = 0, ai = 0, bi = 0;
    struct rr_error err;
    size_t al = 0, bl = 0;

    for (int i = 0; i < N; i++) {
        al += (size_t)sprintf(a + al, "a%d\n", i);
        bl += (size_t)sprintf(b + bl, "b%d\n", i);
    }
    CHECK(wb_lines_split(a, al, &la, &na, &err) == 0 && wb_lines_split(b, bl, &lb, &nb, &err) == 0);
    CHECK(wb_myers(la, na, lb, nb, &e, &ne, &err) == 0);
    for (size_t i = 0; i < ne; i++) {
        dels += e[i].op == WB_DEL;
        ins += e[i].op == WB_INS;
        if (e[i].op != WB_INS)
            CHECK(e[i].a == ai++);
        if (e[i].op != WB_DEL)
            CHECK(e[i].b == bi++);
    }
    CHECK(dels == N && ins == N && ai == na && bi == nb);
    free(la);
    free(lb);
    free(e);
    free(a);
    free(b);
}

TEST(myers_minimal_on_small_input)
{
    const char *a = "a\nb\nc\nd\n", *b = "a\nc\nd\ne\n";
    struct wb_line *la, *lb;
    struct wb_edit *e;
    size_t na, nb, ne, eq = 0;
    struct rr_error err;

    CHECK(wb_lines_split(a, strlen(a), &la, &na, &err) == 0);
    CHECK(wb_lines_split(b, strlen(b), &lb, &nb, &err) == 0);
    CHECK(wb_myers(la, na, lb, nb, &e, &ne, &err) == 0);
    for (size_t i = 0; i < ne; i++)
        eq += e[i].op == WB_EQ;
    CHECK(eq == 3 && ne == 5);
    free(la);
    free(lb);
    free(e);
}
