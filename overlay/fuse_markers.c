/* A checkout that would steer fuse-overlayfs: the daemon reads ".wh.NAME"
 * in its lower as a whiteout of NAME (and ".wh..wh..opq" as an opaque
 * marker) even in the one lower layer, so a pull request that commits an
 * empty ".wh.evil.sh" hides evil.sh from the agent reviewing it (kernel
 * overlayfs shows both). Such a checkout is refused for the fuse backend.
 * The walk is bounded: an explicit stack of open directories (depth cap),
 * an entry cap, d_type rather than a stat per entry; a checkout beyond a
 * cap is refused too, since it could not be shown to hold no marker. */
#include "overlay/overlay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/escape.h"

#define WH_PREFIX ".wh."

struct marker_walk {
    unsigned max_depth;
    uint64_t max_entries;
    DIR *stack[OVERLAY_FUSE_SCAN_DEPTH + 1];
    /* the path of each open directory's entry, for the message */
    char path[4096];
    size_t path_len[OVERLAY_FUSE_SCAN_DEPTH + 2];
    size_t depth;
    uint64_t entries;
};

static int push_dir(struct marker_walk *w, int fd, const char *name, struct rr_error *err)
{
    size_t at = w->path_len[w->depth], n = strlen(name);
    DIR *d;

    if (w->depth == w->max_depth)
        return rr_fail(err, ELOOP,
                       "the checkout is deeper than %u directories: fuse-overlayfs' whiteout "
                       "names cannot be ruled out (use revrun.overlay \"native\")",
                       w->max_depth - 1);
    if (at + n + 2 > sizeof(w->path))
        return rr_fail(err, ENAMETOOLONG, "a checkout path is too long to scan");
    d = fdopendir(fd);
    if (d == NULL) {
        close(fd);
        return rr_fail(err, errno, "scan the checkout");
    }
    if (at > 0)
        w->path[at++] = '/';
    memcpy(w->path + at, name, n);
    w->stack[w->depth++] = d;
    w->path_len[w->depth] = at + n;
    return 0;
}

static void pop_dir(struct marker_walk *w)
{
    closedir(w->stack[--w->depth]);
}

static int refuse_marker(const struct marker_walk *w, const char *name, struct rr_error *err)
{
    char where[1024], shown[512], target[512], what[600];
    size_t n = w->path_len[w->depth];
    const char *t = name + strlen(WH_PREFIX);

    rr_escape(w->path, n, where, sizeof(where));
    rr_escape(name, strlen(name), shown, sizeof(shown));
    rr_escape(t, strlen(t), target, sizeof(target));
    if (strncmp(t, WH_PREFIX, strlen(WH_PREFIX)) == 0)
        snprintf(what, sizeof(what), "would make its directory opaque");
    else
        snprintf(what, sizeof(what), "would hide \"%s\" from the agent", target);
    return rr_fail(err, EPERM,
                   "the checkout holds %s%s%s, a name fuse-overlayfs takes for a whiteout (it %s): "
                   "refused for the fuse backend; use revrun.overlay \"native\"",
                   where, n ? "/" : "", shown, what);
}

/* One entry of the directory on top of the stack. */
static int visit(struct marker_walk *w, const struct dirent *de, struct rr_error *err)
{
    DIR *top = w->stack[w->depth - 1];
    unsigned char type = de->d_type;
    struct stat st;
    int fd;

    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
        return 0;
    if (++w->entries > w->max_entries)
        return rr_fail(err, EFBIG,
                       "the checkout has more than %llu entries: fuse-overlayfs' whiteout names "
                       "cannot be ruled out (use revrun.overlay \"native\")",
                       (unsigned long long)w->max_entries);
    if (strncmp(de->d_name, WH_PREFIX, strlen(WH_PREFIX)) == 0)
        return refuse_marker(w, de->d_name, err);
    if (type == DT_UNKNOWN) {
        if (fstatat(dirfd(top), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return rr_fail(err, errno, "scan the checkout");
        type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
    }
    if (type != DT_DIR)
        return 0;
    fd = openat(dirfd(top), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    /* A directory its reader may not list is not listed by the daemon either. */
    if (fd < 0 && errno == EACCES)
        return 0;
    if (fd < 0)
        return rr_fail(err, errno, "scan the checkout");
    return push_dir(w, fd, de->d_name, err);
}

int overlay_fuse_scan_markers(int lower_fd, unsigned max_depth, uint64_t max_entries,
                              struct rr_error *err)
{
    _cleanup_free_ struct marker_walk *w = calloc(1, sizeof(*w));
    int fd, r = 0;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "scan the checkout");
    /* the top directory takes one level of the stack */
    w->max_depth = (max_depth < OVERLAY_FUSE_SCAN_DEPTH ? max_depth : OVERLAY_FUSE_SCAN_DEPTH) + 1;
    w->max_entries = max_entries;
    fd = openat(lower_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "scan the checkout");
    if (push_dir(w, fd, "", err) < 0)
        return -1;
    while (r == 0 && w->depth > 0) {
        struct dirent *de;
        errno = 0;
        de = readdir(w->stack[w->depth - 1]);
        if (de == NULL) {
            if (errno != 0)
                r = rr_fail(err, errno, "scan the checkout");
            pop_dir(w);
            continue;
        }
        r = visit(w, de, err);
    }
    while (w->depth > 0)
        pop_dir(w);
    return r;
}

int overlay_fuse_check_markers(int lower_fd, struct rr_error *err)
{
    return overlay_fuse_scan_markers(lower_fd, OVERLAY_FUSE_SCAN_DEPTH, OVERLAY_FUSE_SCAN_ENTRIES,
                                     err);
}
