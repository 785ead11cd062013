/* Small trees in a temporary directory for the write-back unit tests: a
 * lower and an upper as plain directories (no mount, no root), vetted with
 * a policy the test shrinks to reach each cap cheaply. */
#ifndef REVRUN_TEST_WB_TREE_H
#define REVRUN_TEST_WB_TREE_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/config.h"
#include "writeback/rules/rules.h"
#include "writeback/scan/scan.h"

struct tree {
    char root[64];
    int lower, upper;
    struct rr_writeback_policy pol;
    struct wb_scan scan;
    bool scanned;
};

static inline void tree_path(const struct tree *t, const char *side, const char *rel, char *out,
                             size_t len)
{
    snprintf(out, len, "%s/%s/%s", t->root, side, rel);
}

static inline void tree_init(struct tree *t)
{
    struct rr_error err;
    char p[128];

    memset(t, 0, sizeof(*t));
    snprintf(t->root, sizeof(t->root), "/tmp/wbtest.XXXXXX");
    if (mkdtemp(t->root) == NULL)
        abort();
    snprintf(p, sizeof(p), "%s/lower", t->root);
    mkdir(p, 0755);
    t->lower = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    snprintf(p, sizeof(p), "%s/upper", t->root);
    mkdir(p, 0755);
    t->upper = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (writeback_policy_defaults(&t->pol, &err) < 0)
        abort();
}

/* side: "lower" or "upper"; rel may hold directories (made as needed). */
static inline void tree_file(struct tree *t, const char *side, const char *rel, const char *text)
{
    char p[4096];
    FILE *f;

    tree_path(t, side, rel, p, sizeof(p));
    for (char *s = strchr(p + strlen(t->root) + 1 + strlen(side) + 1, '/'); s;
         s = strchr(s + 1, '/')) {
        *s = '\0';
        mkdir(p, 0755);
        *s = '/';
    }
    f = fopen(p, "w");
    if (f == NULL)
        abort();
    fputs(text, f);
    fclose(f);
}

static inline void tree_dir(struct tree *t, const char *side, const char *rel)
{
    char p[4096];

    tree_path(t, side, rel, p, sizeof(p));
    mkdir(p, 0755);
}

static inline void tree_link(struct tree *t, const char *side, const char *rel, const char *to)
{
    char p[4096];

    tree_path(t, side, rel, p, sizeof(p));
    if (symlink(to, p) < 0)
        abort();
}

static inline int tree_vet(struct tree *t, enum wb_format f)
{
    struct wb_scan_input in = {
        .lower_fd = t->lower, .upper_fd = t->upper, .format = f, .pol = &t->pol};
    struct rr_error err;

    if (t->scanned)
        wb_scan_free(&t->scan);
    t->scanned = true;
    if (wb_vet(&in, &t->scan, &err) < 0) {
        printf("#   vet: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Was path refused with code (path NULL: any path)? */
static inline bool tree_refused(const struct tree *t, const char *path, const char *code)
{
    for (size_t i = 0; i < t->scan.cs.refused.n; i++) {
        const struct wb_note *n = &t->scan.cs.refused.v[i];
        if (strcmp(n->code, code) == 0 && (path == NULL || strcmp(n->path, path) == 0))
            return true;
    }
    return false;
}

static inline const struct wb_change *tree_change(const struct tree *t, const char *path)
{
    long i = wb_changeset_find(&t->scan.cs, path, strlen(path));
    return i < 0 ? NULL : &t->scan.cs.v[i];
}

static inline void tree_free(struct tree *t)
{
    char cmd[256];

    if (t->scanned)
        wb_scan_free(&t->scan);
    close(t->lower);
    close(t->upper);
    writeback_policy_free(&t->pol);
    snprintf(cmd, sizeof(cmd), "chmod -R u+rwX %s; rm -rf %s", t->root, t->root);
    if (system(cmd) != 0)
        printf("#   could not remove %s\n", t->root);
}

#endif
