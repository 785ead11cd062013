/* Is the set already applied? When verify finds that TARGET no longer holds
 * the base, TARGET may hold the set's result instead: an apply that ran
 * before (a CI step retried, an operator's second try). Then apply writes
 * nothing and says so, instead of refusing with every path a "conflict". */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/apply/apply_int.h"
#include "writeback/apply/apply_same.h"
#include "writeback/base/fsutil.h"

static int holds_link(struct applier *a, int pfd, const char *name, const struct wb_obj *o)
{
    _cleanup_free_ char *t = NULL;
    size_t len;

    if (wb_readlink(pfd, name, 4096, &t, &len, a->err) < 0)
        return -1;
    return len == o->size && memcmp(t, o->target, len) == 0;
}

/* 1 when the path holds the change's new state, 0 when not, -1 on error. */
static int holds_new(struct applier *a, const struct wb_change *c)
{
    _cleanup_close_ int pfd = -1;
    const char *name;
    struct stat st;
    int same;

    if ((pfd = wb_open_parent(a->tfd, c->path, c->path_len, &name)) < 0)
        return c->new.type == WB_T_NONE && (errno == ENOENT || errno == ENOTDIR);
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? c->new.type == WB_T_NONE : rr_fail(a->err, errno, "%s", c->path);
    switch (c->new.type) {
    case WB_T_NONE:
        return 0;
    case WB_T_FILE:
        if ((same = ap_same_file(pfd, name, &st, &c->new, a->err)) < 0)
            return -1;
        return same == AP_SAME && ((st.st_mode & S_IXUSR) != 0) == c->new.exec;
    case WB_T_SYMLINK:
        return S_ISLNK(st.st_mode) ? holds_link(a, pfd, name, &c->new) : 0;
    default:
        return S_ISDIR(st.st_mode);
    }
}

int ap_already_applied(struct applier *a)
{
    for (size_t i = 0; i < a->cs->n; i++) {
        int r = holds_new(a, &a->cs->v[i]);
        if (r <= 0)
            return r < 0 ? rr_wrap(a->err, "TARGET") : 0;
    }
    return a->cs->n > 0;
}
