/* Staging and the logged commit of apply (see apply.h for the plan). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/crashpoint.h"
#include "writeback/apply/apply_int.h"
#include "writeback/export/export.h"
#include "writeback/base/fsutil.h"
#include "writeback/base/rmtree.h"

static void slot(char *buf, size_t len, char kind, size_t i)
{
    snprintf(buf, len, "%c%zu", kind, i);
}

static int open_content(struct applier *a, const struct wb_change *c)
{
    char p[sizeof(WB_BLOBS_DIR) + WB_SHA256_HEX + 1];

    if (!a->src->blobs)
        return wb_openat_beneath(a->src->rootfd, c->path, O_RDONLY | O_NONBLOCK, 0);
    memcpy(p, WB_BLOBS_DIR "/", sizeof(WB_BLOBS_DIR));
    wb_hex(c->new.sha256, WB_SHA256_LEN, p + sizeof(WB_BLOBS_DIR));
    return wb_openat_beneath(a->src->rootfd, p, O_RDONLY | O_NONBLOCK, 0);
}

/* New files are 0644 or 0755; a changed file keeps its bits, with x set
 * where r is, or cleared. */
static mode_t file_mode(const struct applier *a, size_t i)
{
    const struct wb_change *c = &a->cs->v[i];
    mode_t m = c->new.exec ? 0755 : 0644;

    if (c->base.type == WB_T_FILE) {
        m = a->found[i].mode & 0777 & ~(mode_t)0111;
        if (c->new.exec)
            m |= (m & 0444) >> 2;
    }
    return m;
}

int ap_own(struct applier *a, size_t i, int fd, int dirfd, const char *name)
{
    const struct found *f = &a->found[i];
    int r;

    if (!a->keep_owner)
        return 0;
    r = fd >= 0 ? fchown(fd, f->uid, f->gid)
                : fchownat(dirfd, name, f->uid, f->gid, AT_SYMLINK_NOFOLLOW);
    return r < 0 ? rr_fail(a->err, errno, "owner of %s", a->cs->v[i].path) : 0;
}

static int stage_file(struct applier *a, size_t i)
{
    const struct wb_change *c = &a->cs->v[i];
    _cleanup_close_ int src = open_content(a, c), dst = -1;
    char name[32];

    slot(name, sizeof(name), 'n', i);
    if (src < 0)
        return rr_fail(a->err, errno, "content of %s", c->path);
    dst = openat(a->stage_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (dst < 0)
        return rr_fail(a->err, errno, "staging %s", c->path);
    if (wb_copy_verified(src, dst, c->new.size, c->new.sha256, a->err) < 0)
        return rr_wrap(a->err, "staging %s", c->path);
    /* the owner before the mode: chown clears set-id bits (none are set) */
    if (ap_own(a, i, dst, -1, NULL) < 0)
        return -1;
    if (fchmod(dst, file_mode(a, i)) < 0)
        return rr_fail(a->err, errno, "staging %s", c->path);
    return 0;
}

static int make_stage(struct applier *a)
{
    unsigned char rnd[8];
    char hex[17];

    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return rr_fail(a->err, errno, "random stage name");
    wb_hex(rnd, sizeof(rnd), hex);
    snprintf(a->res->stage, sizeof(a->res->stage), WB_STAGE_PREFIX "%s", hex);
    /* The journal names the stage before it exists: a crash from here on
     * leaves nothing a later recovery does not know of. */
    if (a->target->journal >= 0 &&
        wb_journal_begin(a->target->journal, a->tfd, a->target->path, a->res->stage, a->err) < 0) {
        a->res->stage[0] = '\0';
        return -1;
    }
    if (mkdirat(a->tfd, a->res->stage, 0700) < 0) {
        a->res->stage[0] = '\0';
        return rr_fail(a->err, errno, "creating the stage in TARGET");
    }
    a->stage_fd = wb_openat_beneath(a->tfd, a->res->stage, O_RDONLY | O_DIRECTORY, 0);
    if (a->stage_fd < 0)
        return rr_fail(a->err, errno, "opening the stage");
    return 0;
}

int ap_stage(struct applier *a)
{
    if (make_stage(a) < 0)
        return -1;
    for (size_t i = 0; i < a->cs->n; i++) {
        const struct wb_change *c = &a->cs->v[i];
        char name[32];
        slot(name, sizeof(name), 'n', i);
        if (c->new.type == WB_T_FILE && stage_file(a, i) < 0)
            return -1;
        if (c->new.type == WB_T_SYMLINK && symlinkat(c->new.target, a->stage_fd, name) < 0)
            return rr_fail(a->err, errno, "staging %s", c->path);
        if (c->new.type == WB_T_SYMLINK && ap_own(a, i, -1, a->stage_fd, name) < 0)
            return -1;
    }
    if (fsync(a->stage_fd) < 0)
        return rr_fail(a->err, errno, "fsync the stage");
    return 0;
}

/* Log a step before doing it: in the journal, then in memory. */
static int log_step(struct applier *a, enum wb_step_op op, size_t i, uint64_t ino)
{
    const struct wb_change *c = &a->cs->v[i];
    struct wb_step s = {op, (uint32_t)i, ino, c->path, c->path_len};

    if (a->target->journal >= 0 && wb_journal_step(a->target->journal, &s, a->err) < 0)
        return -1;
    a->steps[a->n_steps++] = s;
    return 0;
}

/* The inode of a staged object, which shows later whether it was placed. */
static int staged_ino(struct applier *a, size_t i, uint64_t *ino)
{
    struct stat st;
    char sl[32];

    slot(sl, sizeof(sl), 'n', i);
    if (fstatat(a->stage_fd, sl, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(a->err, errno, "stage %s", sl);
    *ino = st.st_ino;
    return 0;
}

/* Is the object now at stage/slot the one verify saw in TARGET? */
static int still_base(struct applier *a, size_t i, const char *slotname)
{
    struct stat st;

    if (fstatat(a->stage_fd, slotname, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(a->err, errno, "stage %s", slotname);
    if (st.st_ino != a->found[i].ino || st.st_dev != a->found[i].dev)
        return rr_fail(a->err, ESTALE, "%s changed in TARGET during apply", a->cs->v[i].path);
    return 0;
}

/* A directory moved out must be empty: its listed contents went first. */
static int left_empty(struct applier *a, size_t i, const char *slotname)
{
    _cleanup_close_ int fd = wb_openat_beneath(a->stage_fd, slotname, O_RDONLY | O_DIRECTORY, 0);
    char **names = NULL;
    size_t n = 0;

    if (fd < 0 || wb_read_names(fd, 1, &names, &n, a->err) < 0)
        return rr_fail(a->err, fd < 0 ? errno : ESTALE, "%s gained entries in TARGET during apply",
                       a->cs->v[i].path);
    wb_free_names(names, n);
    return n == 0 ? 0
                  : rr_fail(a->err, ESTALE, "%s gained entries in TARGET during apply",
                            a->cs->v[i].path);
}

static int remove_one(struct applier *a, size_t i)
{
    const struct wb_change *c = &a->cs->v[i];
    _cleanup_close_ int pfd = -1;
    const char *name;
    char sl[32];

    slot(sl, sizeof(sl), 'u', i);
    if ((pfd = wb_open_parent(a->tfd, c->path, c->path_len, &name)) < 0)
        return rr_fail(a->err, errno, "removing %s", c->path);
    if (log_step(a, WB_STEP_MOVED, i, 0) < 0)
        return -1;
    if (renameat2(pfd, name, a->stage_fd, sl, RENAME_NOREPLACE) < 0)
        return rr_fail(a->err, errno, "removing %s", c->path);
    if (still_base(a, i, sl) < 0)
        return -1;
    return c->base.type == WB_T_DIR ? left_empty(a, i, sl) : 0;
}

static int make_dir(struct applier *a, size_t i, int pfd, const char *name)
{
    _cleanup_close_ int fd = -1;
    struct stat st;

    if (log_step(a, WB_STEP_MKDIR, i, 0) < 0)
        return -1;
    if (mkdirat(pfd, name, 0700) < 0)
        return rr_fail(a->err, errno, "creating %s", a->cs->v[i].path);
    fd = wb_openat_beneath(pfd, name, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0 || fstat(fd, &st) < 0)
        return rr_fail(a->err, errno, "creating %s", a->cs->v[i].path);
    /* Now the undo can tell this directory from one someone else makes. */
    a->steps[a->n_steps - 1].ino = st.st_ino;
    if (a->target->journal >= 0 &&
        wb_journal_step(a->target->journal, &a->steps[a->n_steps - 1], a->err) < 0)
        return -1;
    if (ap_own(a, i, fd, -1, NULL) < 0)
        return -1;
    if (fchmod(fd, 0755) < 0)
        return rr_fail(a->err, errno, "creating %s", a->cs->v[i].path);
    return 0;
}

static int place_one(struct applier *a, size_t i)
{
    const struct wb_change *c = &a->cs->v[i];
    _cleanup_close_ int pfd = -1;
    const char *name;
    uint64_t ino = 0;
    char sl[32];

    slot(sl, sizeof(sl), 'n', i);
    if ((pfd = wb_open_parent(a->tfd, c->path, c->path_len, &name)) < 0)
        return rr_fail(a->err, errno, "placing %s", c->path);
    if (c->new.type == WB_T_DIR)
        return make_dir(a, i, pfd, name);
    if (staged_ino(a, i, &ino) < 0)
        return -1;
    if (c->base.type == c->new.type) { /* the old one swaps into the stage */
        if (log_step(a, WB_STEP_EXCHANGED, i, ino) < 0)
            return -1;
        if (renameat2(a->stage_fd, sl, pfd, name, RENAME_EXCHANGE) < 0)
            return rr_fail(a->err, errno, "placing %s", c->path);
        return still_base(a, i, sl);
    }
    if (log_step(a, WB_STEP_PLACED, i, ino) < 0)
        return -1;
    if (renameat2(a->stage_fd, sl, pfd, name, RENAME_NOREPLACE) < 0)
        return rr_fail(a->err, errno, "placing %s", c->path);
    return 0;
}

static bool removes(const struct wb_change *c)
{
    return c->base.type != WB_T_NONE && c->base.type != c->new.type;
}

size_t ap_count_steps(const struct applier *a)
{
    size_t n = 0;

    for (size_t i = 0; i < a->cs->n; i++)
        n += removes(&a->cs->v[i]) + (a->cs->v[i].new.type != WB_T_NONE);
    return n;
}

/* The crash-safety tests stop the process half way through the commit. */
static void halfway(struct applier *a, size_t total)
{
    if (a->n_steps == (total + 1) / 2)
        crash_point("apply-commit");
}

int ap_commit(struct applier *a)
{
    static const char done[] = "";
    struct wb_step committed = {WB_STEP_COMMITTED, 0, 0, done, 0};
    size_t total = ap_count_steps(a);

    for (size_t i = a->cs->n; i > 0; i--) { /* children before their directories */
        if (removes(&a->cs->v[i - 1]) && remove_one(a, i - 1) < 0)
            return -1;
        halfway(a, total);
    }
    for (size_t i = 0; i < a->cs->n; i++) { /* directories before their children */
        if (a->cs->v[i].new.type != WB_T_NONE && place_one(a, i) < 0)
            return -1;
        halfway(a, total);
    }
    if (syncfs(a->tfd) < 0)
        return rr_fail(a->err, errno, "syncfs TARGET");
    if (a->target->journal >= 0 && wb_journal_step(a->target->journal, &committed, a->err) < 0)
        return -1;
    crash_point("apply-committed");
    return 0;
}

bool ap_rollback(struct applier *a)
{
    bool ok = true;

    while (a->n_steps > 0)
        if (wb_undo_step(a->tfd, a->stage_fd, &a->steps[--a->n_steps]) < 0)
            ok = false; /* keep going: restore everything else that can be */
    return ok;
}

void ap_remove_stage(struct applier *a)
{
    struct rr_error ignored;

    if (a->res->stage[0] == '\0')
        return;
    if (a->stage_fd >= 0)
        close(a->stage_fd);
    a->stage_fd = -1;
    if (wb_rmtree_at(a->tfd, a->res->stage, 512, &ignored) == 0)
        a->res->stage[0] = '\0';
}
