/* The indexes the classifier asks whether an ignored path is tracked: the
 * checkout's (a worktree's through its gitfile) and the agent's, each a
 * regular file opened beneath its tree and read by revrun's own bounded
 * reader (gitindex.h), never by libgit2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/git/gitclass_int.h"
#include "writeback/git/gitfile.h"

/* The checkout's index could not be read: every changed checkout file then
 * counts as tracked (nothing of the checkout is left out on a guess). */
static void lower_failed(struct wb_git *g, const char *why)
{
    g->lower_failed = true;
    if (g->problem[0] == '\0')
        snprintf(g->problem, sizeof(g->problem), "the checkout's index could not be read (%s)",
                 why);
}

/* The index fd holds (O_PATH, or -1: none) into *out, by revrun's own reader
 * (gitindex.h): no index reaches libgit2. 0, or -1 with why. A file that is
 * not a regular one is no index. */
static int read_index_fd(int fd, struct wb_gitindex **out, char *why, size_t why_len)
{
    struct rr_error err = {0};
    char *buf = NULL;
    size_t len;
    int r;

    *out = NULL;
    if (fd < 0)
        return 0;
    if ((r = wb_git_read_fd(fd, WB_GIT_INDEX_MAX, &buf, &len, &err)) <= 0) {
        if (r < 0)
            snprintf(why, why_len, "%s", err.errnum == E2BIG ? "larger than 256 MiB"
                                                              : strerror(err.errnum));
        return r;
    }
    if ((r = wb_gitindex_parse(buf, len, out, why, why_len, &err)) < 0)
        snprintf(why, why_len, "%s", strerror(err.errnum));
    return r == 1 ? 0 : -1;
}

/* root/.git/index into *out; a tree without one (or, in the upper, with the
 * whiteout of one) leaves *out NULL. */
static int read_index(int root, struct wb_gitindex **out, char *why, size_t why_len)
{
    _cleanup_close_ int fd = wb_openat_beneath(root, ".git/index", O_PATH, 0);

    *out = NULL;
    if (fd < 0 && errno != ENOENT) {
        snprintf(why, why_len, "%s", strerror(errno));
        return -1;
    }
    return read_index_fd(fd, out, why, why_len);
}

void gc_load_indexes(struct wb_git *g)
{
    char why[200];

    g->indexes_read = true;
    if (g->worktree) {
        /* The agent has no git directory of its own there. */
        if (read_index_fd(g->wt_index_fd, &g->lower_idx, why, sizeof(why)) < 0)
            lower_failed(g, why);
        return;
    }
    if (read_index(g->lower_fd, &g->lower_idx, why, sizeof(why)) < 0)
        lower_failed(g, why);
    /* The agent's index only ever adds: a new path it force-added counts as
     * tracked. Unread, it adds nothing; the checkout's answers still hold. */
    if (read_index(g->upper_fd, &g->upper_idx, why, sizeof(why)) < 0 && g->problem[0] == '\0')
        snprintf(g->problem, sizeof(g->problem),
                 "the agent's index was not read (%s): a file it force-added (git add -f) "
                 "that an ignore rule matches is left out like any ignored file",
                 why);
}
