/* The apply journal (see journal.h). */
#include "writeback/apply/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/rmtree.h"

#define MAGIC "RRAPJ01\n"
#define PATH_CAP 4096
/* Two steps per change at most, and a change's path is at most PATH_CAP. */
#define JOURNAL_CAP ((size_t)256 << 20)

struct head {
    char magic[8];
    uint64_t dev, ino;
    char stage[32];
    uint32_t path_len, pad;
};

struct rec {
    uint32_t op, slot;
    uint64_t ino;
    uint32_t path_len, pad;
};

_Static_assert(WB_STAGE_NAME_LEN < sizeof(((struct head *)0)->stage), "stage name fits");

static int append(int jfd, const void *a, size_t alen, const void *b, size_t blen,
                  struct rr_error *err)
{
    struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
    ssize_t w;

    if (lseek(jfd, 0, SEEK_END) < 0)
        return rr_fail(err, errno, "apply journal");
    w = writev(jfd, iov, 2);
    if (w < 0)
        return rr_fail(err, errno, "writing the apply journal");
    if ((size_t)w != alen + blen)
        return rr_fail(err, ENOSPC, "writing the apply journal");
    return 0;
}

int wb_journal_begin(int jfd, int tfd, const char *target_path, const char *stage,
                     struct rr_error *err)
{
    struct head h = {.magic = MAGIC};
    struct stat st;
    size_t plen = strlen(target_path);

    if (fstat(tfd, &st) < 0)
        return rr_fail(err, errno, "TARGET");
    if (plen >= PATH_CAP || strlen(stage) != WB_STAGE_NAME_LEN)
        return rr_fail(err, ENAMETOOLONG, "apply journal: TARGET path");
    h.dev = st.st_dev;
    h.ino = st.st_ino;
    memcpy(h.stage, stage, WB_STAGE_NAME_LEN);
    h.path_len = (uint32_t)plen;
    if (ftruncate(jfd, 0) < 0)
        return rr_fail(err, errno, "apply journal");
    return append(jfd, &h, sizeof(h), target_path, plen, err);
}

int wb_journal_step(int jfd, const struct wb_step *s, struct rr_error *err)
{
    struct rec r = {.op = s->op, .slot = s->slot, .ino = s->ino, .path_len = (uint32_t)s->path_len};

    return append(jfd, &r, sizeof(r), s->path, s->path_len, err);
}

int wb_journal_clear(int jfd, struct rr_error *err)
{
    if (ftruncate(jfd, 0) < 0)
        return rr_fail(err, errno, "clearing the apply journal");
    return 0;
}

int wb_journal_settle(int jfd, struct rr_error *err)
{
    struct head h;

    if (pread(jfd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.path_len >= PATH_CAP)
        return rr_fail(err, EIO, "apply journal: header");
    if (ftruncate(jfd, (off_t)(sizeof(h) + h.path_len)) < 0)
        return rr_fail(err, errno, "settling the apply journal");
    return 0;
}

void wb_stage_slot(char *buf, size_t len, const struct wb_step *s)
{
    snprintf(buf, len, "%c%u", s->op == WB_STEP_MOVED ? 'u' : 'n', (unsigned)s->slot);
}

int wb_open_parent(int tfd, const char *path, size_t len, const char **name)
{
    const char *slash = memrchr(path, '/', len);
    _cleanup_free_ char *parent = NULL;

    *name = slash ? slash + 1 : path;
    if (slash == NULL)
        return openat(tfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if ((parent = strndup(path, (size_t)(slash - path))) == NULL) {
        errno = ENOMEM;
        return -1;
    }
    return wb_openat_beneath(tfd, parent, O_PATH | O_DIRECTORY, 0);
}

/* Is the object at dirfd/name the inode ino? 1 yes, 0 no or absent, -1. */
static int holds(int dirfd, const char *name, uint64_t ino)
{
    struct stat st;

    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return errno == ENOENT ? 0 : -1;
    return (uint64_t)st.st_ino == ino;
}

int wb_undo_step(int tfd, int stage_fd, const struct wb_step *s)
{
    const char *name;
    _cleanup_close_ int pfd = wb_open_parent(tfd, s->path, s->path_len, &name);
    char sl[16];
    int h;

    wb_stage_slot(sl, sizeof(sl), s);
    if (s->op == WB_STEP_MOVED) {
        /* Only that rename makes u<slot> in the private stage, so its being
         * there is the evidence, whatever object it was. */
        if (faccessat(stage_fd, sl, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
            return errno == ENOENT ? 0 : -1;
        return pfd < 0 ? -1 : renameat2(stage_fd, sl, pfd, name, RENAME_NOREPLACE);
    }
    if (pfd < 0) {
        /* The step's directory is not there, or is no directory: a later
         * undo already put the base back (a file where the set made a
         * directory). An exchange is never under a new directory, so for it
         * this cannot be: its old object is in the stage and must not go. */
        bool gone = errno == ENOENT || errno == ENOTDIR || errno == ELOOP;
        return gone && s->op != WB_STEP_EXCHANGED ? 0 : -1;
    }
    if (s->op == WB_STEP_MKDIR) {
        struct stat st;
        /* The inode is known once mkdir returned (a second record); a
         * directory someone else made there is left alone. Unknown (killed
         * in between): only a directory is removed, and rmdir takes only an
         * empty one; a file or symlink there is the base, already put back
         * by an earlier, interrupted recovery. */
        if (s->ino != 0 && (h = holds(pfd, name, s->ino)) <= 0)
            return h;
        if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return errno == ENOENT ? 0 : -1;
        if (!S_ISDIR(st.st_mode))
            return 0;
        return unlinkat(pfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -1 : 0;
    }
    if ((h = holds(pfd, name, s->ino)) <= 0)
        return h;
    if (s->op == WB_STEP_EXCHANGED)
        return renameat2(stage_fd, sl, pfd, name, RENAME_EXCHANGE);
    return renameat2(pfd, name, stage_fd, sl, RENAME_NOREPLACE);
}

struct parsed {
    struct head h;
    char target[PATH_CAP];
    struct wb_step *steps;
    char *names; /* the steps' paths, each NUL-terminated */
    size_t n;
    bool committed;
};

static int read_all(int jfd, char **buf, size_t *len, struct rr_error *err)
{
    struct stat st;
    size_t got = 0;

    if (fstat(jfd, &st) < 0)
        return rr_fail(err, errno, "apply journal");
    if ((uint64_t)st.st_size > JOURNAL_CAP)
        return rr_fail(err, EFBIG, "apply journal");
    if ((*buf = malloc((size_t)st.st_size + 1)) == NULL)
        return rr_fail(err, ENOMEM, "apply journal");
    while (got < (size_t)st.st_size) {
        ssize_t r = pread(jfd, *buf + got, (size_t)st.st_size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return rr_fail(err, r < 0 ? errno : EIO, "reading the apply journal");
        got += (size_t)r;
    }
    *len = got;
    return 0;
}

static bool stage_name_ok(const char *s)
{
    if (strnlen(s, 32) != WB_STAGE_NAME_LEN || strncmp(s, WB_STAGE_PREFIX, 14) != 0)
        return false;
    for (size_t i = sizeof(WB_STAGE_PREFIX) - 1; i < WB_STAGE_NAME_LEN; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

static bool path_ok(const char *p, size_t len)
{
    return len > 0 && len < PATH_CAP && memchr(p, '\0', len) == NULL && p[0] != '/';
}

/* A record cut short at the end is a write that never
 * returned, so its step never ran: it is dropped. */
static int parse(char *buf, size_t len, struct parsed *p, struct rr_error *err)
{
    size_t off = sizeof(struct head), cap;
    char *names;

    if (len < sizeof(p->h))
        return rr_fail(err, EINVAL, "apply journal: no header");
    memcpy(&p->h, buf, sizeof(p->h));
    if (memcmp(p->h.magic, MAGIC, 8) != 0 || p->h.path_len == 0 || p->h.path_len >= PATH_CAP ||
        len - off < p->h.path_len || !stage_name_ok(p->h.stage))
        return rr_fail(err, EINVAL, "apply journal: bad header");
    memcpy(p->target, buf + off, p->h.path_len);
    p->target[p->h.path_len] = '\0';
    if (p->target[0] != '/' || strlen(p->target) != p->h.path_len)
        return rr_fail(err, EINVAL, "apply journal: bad TARGET path");
    off += p->h.path_len;
    cap = (len - off) / sizeof(struct rec) + 1;
    p->steps = calloc(cap, sizeof(*p->steps));
    p->names = malloc(len - off + cap);
    if (p->steps == NULL || p->names == NULL)
        return rr_fail(err, ENOMEM, "apply journal");
    names = p->names;
    while (len - off >= sizeof(struct rec)) {
        struct rec r;
        memcpy(&r, buf + off, sizeof(r));
        off += sizeof(r);
        if (len - off < r.path_len)
            break;
        if (r.op == WB_STEP_COMMITTED) {
            p->committed = true;
        } else if (r.op == WB_STEP_MKDIR && r.ino != 0 && p->n > 0 &&
                   p->steps[p->n - 1].op == WB_STEP_MKDIR && p->steps[p->n - 1].slot == r.slot) {
            p->steps[p->n - 1].ino = r.ino; /* the directory mkdir made */
        } else if (r.op < WB_STEP_MOVED || r.op > WB_STEP_PLACED ||
                   !path_ok(buf + off, r.path_len)) {
            return rr_fail(err, EINVAL, "apply journal: bad record");
        } else {
            memcpy(names, buf + off, r.path_len);
            names[r.path_len] = '\0';
            p->steps[p->n++] = (struct wb_step){r.op, r.slot, r.ino, names, r.path_len};
            names += r.path_len + 1;
        }
        off += r.path_len;
    }
    return 0;
}

static int open_target(struct parsed *p, int tfd, struct rr_error *err)
{
    struct stat st;
    int fd = tfd >= 0 ? fcntl(tfd, F_DUPFD_CLOEXEC, 3)
                      : open(p->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "TARGET %s of an interrupted apply", p->target);
    /* Opened here (sweep): an apply onto it under another state root may be
     * running; its lock on TARGET says so. */
    if (tfd < 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "TARGET %s: an apply onto it is running", p->target);
    }
    if (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != p->h.dev || (uint64_t)st.st_ino != p->h.ino) {
        close(fd);
        return rr_fail(err, ESTALE,
                       "%s is no longer the TARGET an interrupted apply was writing to",
                       p->target);
    }
    return fd;
}

static int roll_back(struct parsed *p, int jfd, int tfd, struct wb_recovery *out,
                     struct rr_error *err)
{
    _cleanup_close_ int stage = wb_openat_beneath(tfd, p->h.stage, O_RDONLY | O_DIRECTORY, 0);

    /* No stage: never made, or removed once the steps were settled (the
     * journal then lists none) or committed. */
    if (stage < 0 && (errno != ENOENT || (p->n > 0 && !p->committed)))
        return rr_fail(err, errno, "the stage %s/%s of an interrupted apply", p->target,
                       p->h.stage);
    for (size_t i = p->n; !p->committed && i > 0; i--) {
        const struct wb_step *s = &p->steps[i - 1];
        if (wb_undo_step(tfd, stage, s) < 0)
            return rr_fail(err, errno, "rolling back %.*s in %s", (int)s->path_len, s->path,
                           p->target);
        out->undone++;
    }
    if (!p->committed && wb_journal_settle(jfd, err) < 0)
        return -1;
    if (stage >= 0 && wb_rmtree_at(tfd, p->h.stage, 512, err) < 0)
        return rr_wrap(err, "removing the stage of an interrupted apply");
    return 0;
}

int wb_journal_recover(int jfd, int tfd, struct wb_recovery *out, struct rr_error *err)
{
    _cleanup_free_ char *buf = NULL;
    struct parsed p = {0};
    _cleanup_close_ int fd = -1;
    size_t len = 0;
    int r = -1;

    *out = (struct wb_recovery){0};
    if (read_all(jfd, &buf, &len, err) < 0)
        return -1;
    if (len == 0)
        return 0;
    if (parse(buf, len, &p, err) == 0 && (fd = open_target(&p, tfd, err)) >= 0) {
        out->found = true;
        out->committed = p.committed;
        snprintf(out->target, sizeof(out->target), "%s", p.target);
        if (roll_back(&p, jfd, fd, out, err) == 0) {
            if (syncfs(fd) < 0)
                rr_fail(err, errno, "syncfs %s", p.target);
            else
                r = wb_journal_clear(jfd, err);
        }
    }
    free(p.steps);
    free(p.names);
    return r;
}
