/* The apply journals in the state root (see apply_journal.h). */
#include "runtime/jobs/apply_journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/escape.h"
#include "runtime/container/container.h"
#include "writeback/apply/journal.h"

#define JOURNAL_DIR ".apply"

static int open_dir(const struct rr_ctx *ctx, bool create, struct rr_error *err)
{
    _cleanup_close_ int rootfd = container_root(ctx, create, err);
    struct stat st;
    int fd;

    if (rootfd < 0)
        return -1;
    if (create && mkdirat(rootfd, JOURNAL_DIR, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "%s/%s", ctx->root, JOURNAL_DIR);
    fd = openat(rootfd, JOURNAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "%s/%s", ctx->root, JOURNAL_DIR);
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        close(fd);
        return rr_fail(err, EPERM, "%s/%s must be private to uid %u", ctx->root, JOURNAL_DIR,
                       (unsigned)geteuid());
    }
    return fd;
}

/* Is fd still the file dir/name? A journal can be removed by the holder of
 * its lock while we waited for it; then we locked a file nobody else sees. */
static int still_linked(int dir, const char *name, int fd)
{
    struct stat a, b;

    if (fstat(fd, &a) < 0)
        return -1;
    if (fstatat(dir, name, &b, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -1;
    return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* Open and lock dir/name: 1 locked, 0 busy (nonblocking), -1 error. */
static int lock_journal(int dir, const char *name, bool create, bool wait, int *out)
{
    for (int tries = 0; tries < 16; tries++) {
        int fd = openat(dir, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
        int r;
        if (fd < 0)
            return -1;
        while ((r = flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) < 0 && errno == EINTR)
            ;
        if (r == 0 && (r = still_linked(dir, name, fd)) == 1) {
            *out = fd;
            return 1;
        }
        close(fd);
        if (r < 0)
            return errno == EWOULDBLOCK ? 0 : -1;
        if (!create)
            return errno = ENOENT, -1;
    }
    return errno = EAGAIN, -1;
}

int apply_journal_open(const struct rr_ctx *ctx, int tfd, struct apply_journal *j,
                       struct rr_error *err)
{
    struct stat st;

    *j = (struct apply_journal){.dir = -1, .fd = -1};
    if (fstat(tfd, &st) < 0)
        return rr_fail(err, errno, "TARGET");
    snprintf(j->name, sizeof(j->name), "%llx-%llx", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    if ((j->dir = open_dir(ctx, true, err)) < 0)
        return rr_wrap(err, "the apply journal");
    if (lock_journal(j->dir, j->name, true, true, &j->fd) != 1) {
        rr_fail(err, errno, "the apply journal %s/%s/%s", ctx->root, JOURNAL_DIR, j->name);
        close(j->dir);
        j->dir = -1;
        return -1;
    }
    return 0;
}

static void drop_if_empty(int dir, const char *name, int fd)
{
    struct stat st;

    if (fstat(fd, &st) == 0 && st.st_size == 0)
        (void)unlinkat(dir, name, 0); /* a leftover empty file is harmless */
}

void apply_journal_close(struct apply_journal *j)
{
    if (j->fd >= 0) {
        drop_if_empty(j->dir, j->name, j->fd);
        close(j->fd);
    }
    if (j->dir >= 0)
        close(j->dir);
    *j = (struct apply_journal){.dir = -1, .fd = -1};
}

static void report(struct sweep_report *rep, const char *target, const char *what)
{
    _cleanup_free_ char *t = rr_escape_dup(target, strlen(target));

    snprintf(rep->lines[rep->n % SWEEP_MAX_LINES], sizeof(rep->lines[0]),
             "swept an interrupted apply onto %s: %s", t ? t : "?", what);
    rep->n++;
}

static void sweep_one(int dir, const char *name, uint64_t older_than_s, struct sweep_report *rep)
{
    _cleanup_close_ int fd = -1;
    struct wb_recovery rec;
    struct rr_error err;
    struct stat st;
    char what[sizeof(err.msg) + 160], text[sizeof(err.msg) + 128];

    if (lock_journal(dir, name, false, false, &fd) != 1 || fstat(fd, &st) < 0)
        return; /* gone, or an apply is running */
    if (older_than_s > 0 && time(NULL) - st.st_mtime < (time_t)older_than_s)
        return;
    if (wb_journal_recover(fd, -1, &rec, &err) < 0) {
        snprintf(what, sizeof(what), "NOT recovered, its journal is kept: %s",
                 rr_error_text(&err, text, sizeof(text)));
        report(rep, rec.target[0] ? rec.target : name, what);
        return;
    }
    if (rec.found && rec.committed)
        report(rep, rec.target, "it had completed; its stage is removed");
    else if (rec.found) {
        snprintf(what, sizeof(what), "rolled back %zu steps; TARGET is as it was", rec.undone);
        report(rep, rec.target, what);
    }
    drop_if_empty(dir, name, fd);
}

int apply_journal_sweep(const struct rr_ctx *ctx, uint64_t older_than_s,
                        struct sweep_report *rep, struct rr_error *err)
{
    int dir = open_dir(ctx, false, err);
    struct dirent *de;
    DIR *d;

    if (dir < 0)
        return err->errnum == ENOENT ? 0 : rr_wrap(err, "sweep apply journals");
    if ((d = fdopendir(dir)) == NULL) {
        close(dir);
        return rr_fail(err, errno, "sweep apply journals");
    }
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            sweep_one(dirfd(d), de->d_name, older_than_s, rep);
    closedir(d);
    return 0;
}
