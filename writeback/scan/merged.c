/* What the merged view shows at a path, without mounting it: the upper
 * index first (whiteouts hide, opaque directories hide the lower below
 * them), then the checkout, opened beneath its top without following a
 * symlink. Used to resolve symlinks and to list directories for collisions. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/scan/merged.h"
#include "writeback/names/names.h"

/* The checkout's directory at path[0..len) ("" is the top), or -1. */
int wb_lower_dir(const struct wb_scan *s, const char *path, size_t len, int flags)
{
    _cleanup_free_ char *p = strndup(path, len);

    if (p == NULL)
        return -1;
    return wb_openat_beneath(s->lower_fd, len ? p : ".", flags | O_DIRECTORY, 0);
}

static int lower_lookup(const struct wb_scan *s, const char *path, size_t len, struct wb_node *out,
                        struct rr_error *err)
{
    const char *slash = memrchr(path, '/', len);
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    _cleanup_free_ char *name = strndup(slash ? slash + 1 : path, len - dlen - (slash != NULL));
    _cleanup_close_ int dfd = -1;
    struct stat st;
    size_t tlen;

    if (name == NULL)
        return rr_fail(err, ENOMEM, "lookup");
    dfd = wb_lower_dir(s, path, dlen, O_PATH);
    if (dfd < 0 || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return 0; /* absent, or behind a symlink or a mount: not on this path */
    if (S_ISDIR(st.st_mode))
        out->kind = WB_N_DIR;
    else if (!S_ISLNK(st.st_mode))
        out->kind = WB_N_FILE;
    else if (wb_readlink(dfd, name, 4096, &out->target, &tlen, err) < 0)
        return -1;
    else
        out->kind = WB_N_SYMLINK;
    return 0;
}

static int from_upper(const struct wb_upper_entry *e, struct wb_node *out, struct rr_error *err)
{
    static const enum wb_node_kind kinds[] = {[WB_U_DIR] = WB_N_DIR,
                                              [WB_U_FILE] = WB_N_FILE,
                                              [WB_U_SYMLINK] = WB_N_SYMLINK,
                                              [WB_U_WHITEOUT] = WB_N_ABSENT};

    out->kind = kinds[e->kind];
    if (e->kind == WB_U_SYMLINK && (out->target = strdup(e->target)) == NULL)
        return rr_fail(err, ENOMEM, "lookup");
    return 0;
}

int wb_merged_lookup(void *ctx, const char *path, size_t len, struct wb_node *out,
                     struct rr_error *err)
{
    const struct wb_scan *s = ctx;
    bool hidden = false;
    size_t pos = 0, n;
    const char *c;

    *out = (struct wb_node){.kind = WB_N_ABSENT};
    while (wb_next_component(path, len, &pos, &c, &n)) {
        size_t end = (size_t)(c - path) + n;
        const struct wb_upper_entry *e = wb_scan_find(s, path, end);
        if (e == NULL)
            return hidden ? 0 : lower_lookup(s, path, len, out, err);
        if (e->kind == WB_U_WHITEOUT)
            return 0;
        if (end == len)
            return from_upper(e, out, err);
        if (e->kind != WB_U_DIR)
            return 0; /* a file has no children; a link was followed before */
        hidden |= e->opaque;
    }
    return 0;
}

bool wb_merged_hides_lower(const struct wb_scan *s, const char *dir, size_t len)
{
    size_t pos = 0, n;
    const char *c;

    while (len > 0 && wb_next_component(dir, len, &pos, &c, &n)) {
        const struct wb_upper_entry *e = wb_scan_find(s, dir, (size_t)(c - dir) + n);
        if (e != NULL && (e->opaque || e->kind != WB_U_DIR))
            return true;
    }
    return false;
}
