#include "runtime/container/idalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "runtime/container/idalloc_int.h"
#include "runtime/container/statedir.h"

/* The directory, root's and 0700: anyone else able to write there could
 * free a live container's id or hold every id. */
int ida_open_dir(bool create, struct rr_error *err)
{
    struct stat st;
    int fd;

    if (create && mkdir(IDALLOC_DIR, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "host id directory %s", IDALLOC_DIR);
    fd = open(IDALLOC_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "host id directory %s", IDALLOC_DIR);
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "host id directory %s", IDALLOC_DIR);
    }
    if (st.st_uid != geteuid() || (st.st_mode & 077)) {
        close(fd);
        return rr_fail(err, EPERM, "host id directory %s must belong to uid %u, mode 0700",
                       IDALLOC_DIR, (unsigned)geteuid());
    }
    return fd;
}

int ida_lock_dir(int dfd, struct rr_error *err)
{
    while (flock(dfd, LOCK_EX) < 0)
        if (errno != EINTR)
            return rr_fail(err, errno, "lock %s", IDALLOC_DIR);
    return 0;
}

/* An id's file name: decimal, no leading zero, nothing else. */
bool ida_name_id(const char *name, uint32_t *id)
{
    char *end, back[16];
    unsigned long v;

    if (name[0] < '0' || name[0] > '9')
        return false;
    errno = 0;
    v = strtoul(name, &end, 10);
    if (errno != 0 || *end != '\0' || v > UINT32_MAX)
        return false;
    snprintf(back, sizeof(back), "%lu", v);
    if (strcmp(back, name) != 0)
        return false;
    *id = (uint32_t)v;
    return true;
}

/* "container CID\nroot PATH\ncreator PID START\n", then an engine
 * container's "init PID START NSDEV:NSINO\n"; -1 when it is not that. */
int ida_record_read(int fd, struct record *rec)
{
    char *buf = rec->text, *nl, *root;
    size_t used = 0;
    ssize_t n;

    while (used < RECORD_MAX && (n = pread(fd, buf + used, RECORD_MAX - used, (off_t)used)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        used += (size_t)n;
    }
    buf[used] = '\0';
    if (strncmp(buf, "container ", 10) != 0 || (nl = strchr(buf, '\n')) == NULL ||
        (size_t)(nl - buf - 10) >= sizeof(rec->cid))
        return -1;
    memcpy(rec->cid, buf + 10, (size_t)(nl - buf - 10));
    rec->cid[nl - buf - 10] = '\0';
    root = nl + 1;
    if (strncmp(root, "root /", 6) != 0 || (nl = strchr(root, '\n')) == NULL ||
        (size_t)(nl - root - 5) >= sizeof(rec->root))
        return -1;
    memcpy(rec->root, root + 5, (size_t)(nl - root - 5));
    rec->root[nl - root - 5] = '\0';
    return rr_id_valid(rec->cid) ? 0 : -1;
}

int ida_write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

/* The temporary record, held (shared flock) from before it has a name of
 * an id, so no reclaimer ever sees an id's file unheld while its taker
 * lives. */
static int record_make(int dfd, const char *tmp, const char *root, const char *cid,
                       const struct proc_ref *me, struct rr_error *err)
{
    char text[RECORD_MAX];
    int fd, n;

    n = snprintf(text, sizeof(text), "container %s\nroot %s\ncreator %d %llu\n", cid, root,
                 (int)me->pid, me->start_time);
    if (n < 0 || (size_t)n >= sizeof(text))
        return rr_fail(err, ENAMETOOLONG, "host id record");
    fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return rr_fail(err, errno, "host id record %s/%s", IDALLOC_DIR, tmp);
    if (flock(fd, LOCK_SH) < 0 || ida_write_all(fd, text, (size_t)n) < 0) {
        int e = errno;
        close(fd);
        unlinkat(dfd, tmp, 0);
        return rr_fail(err, e, "host id record %s/%s", IDALLOC_DIR, tmp);
    }
    return fd;
}

/* link(2) the record to an id's name: 1 taken, 0 held by another, -1 error. */
static int link_id(int dfd, const char *tmp, uint32_t id, struct rr_error *err)
{
    char name[16];

    snprintf(name, sizeof(name), "%u", (unsigned)id);
    if (linkat(dfd, tmp, dfd, name, 0) == 0)
        return 1;
    if (errno == EEXIST)
        return 0;
    return rr_fail(err, errno, "take host id %u in %s", (unsigned)id, IDALLOC_DIR);
}

/* 1 with *id taken, 0 when every candidate is held, -1 on error. */
static int link_any(int dfd, const char *tmp, const struct rr_id_range *r, bool exact,
                    uint32_t stride, uint32_t *id, struct rr_error *err)
{
    if (exact)
        return link_id(dfd, tmp, *id, err);
    for (uint32_t k = 0; k < r->count; k += stride) {
        int got = link_id(dfd, tmp, r->first + k, err);
        if (got != 0) {
            if (got > 0)
                *id = r->first + k;
            return got;
        }
    }
    return 0;
}

static void quiet(void *arg, const char *line)
{
    (void)arg;
    (void)line;
}

/* Who holds id (for the refusal), "another container" when unreadable. */
static void holder_of(int dfd, uint32_t id, char *out, size_t len)
{
    char name[16];
    struct record rec;
    _cleanup_close_ int fd = -1;

    snprintf(name, sizeof(name), "%u", (unsigned)id);
    snprintf(out, len, "another container");
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && ida_record_read(fd, &rec) == 0)
        snprintf(out, len, "container %s of state root %s", rec.cid, rec.root);
}

static int refuse_full(int dfd, const struct rr_id_range *r, bool exact, uint32_t id,
                       struct rr_error *err)
{
    char who[4300];

    if (exact) {
        holder_of(dfd, id, who, sizeof(who));
        return rr_fail(err, EUSERS,
                       "host id %u (linux.uidMappings/gidMappings) is held by %s: containers "
                       "never share a host id of revrun's hostIds range; remove the mappings "
                       "and revrun gives this container an id of its own",
                       (unsigned)id, who);
    }
    return rr_fail(err, EUSERS,
                   "no free host id: all %u ids of the hostIds range %u-%u are held by "
                   "containers (destroy some, `revrun sweep` frees those of crashed runs, or "
                   "widen hostIds in %s)",
                   r->count, r->first, r->first + (r->count - 1), "/etc/revrun/policy.json");
}

static int take(const struct rr_id_range *r, bool exact, uint32_t stride, uint32_t *id,
                const char *root, const char *cid, int *held, struct rr_error *err)
{
    _cleanup_close_ int dfd = -1;
    struct proc_ref me;
    char tmp[64];
    int fd, got;

    *held = -1;
    if (root[0] != '/' || strchr(root, '\n') != NULL)
        return rr_fail(err, EINVAL, "state root %s: not a path a host id record can name", root);
    if ((dfd = ida_open_dir(true, err)) < 0 || proc_ref_of(getpid(), &me, err) < 0)
        return rr_wrap(err, "host id");
    snprintf(tmp, sizeof(tmp), TMP_PREFIX "%d.%llu", (int)me.pid, me.start_time);
    /* A reclaimer (the directory locked exclusively) must not find the
     * temporary record between its creation and its flock, unheld. */
    while (flock(dfd, LOCK_SH) < 0)
        if (errno != EINTR)
            return rr_fail(err, errno, "lock %s", IDALLOC_DIR);
    fd = record_make(dfd, tmp, root, cid, &me, err);
    flock(dfd, LOCK_UN); /* before link_any's reclaim takes it exclusively */
    if (fd < 0)
        return -1;
    got = link_any(dfd, tmp, r, exact, stride, id, err);
    /* Full: ids of crashed runs whose state is gone come back first. */
    if (got == 0) {
        struct rr_error ignored;
        if (idalloc_reclaim(quiet, NULL, &ignored) == 0)
            got = link_any(dfd, tmp, r, exact, stride, id, err);
    }
    unlinkat(dfd, tmp, 0);
    if (got <= 0) {
        close(fd);
        if (got < 0)
            return -1;
        if (stride > 1)
            return rr_fail(err, EUSERS,
                           "no free host id block: all %u blocks of %u ids of the engineIds "
                           "range %u-%u are held by engine containers (delete some, `revrun "
                           "sweep` frees those whose state is gone, or widen engineIds in %s)",
                           r->count / stride, stride, r->first, r->first + (r->count - 1),
                           "/etc/revrun/policy.json");
        return refuse_full(dfd, r, exact, *id, err);
    }
    *held = fd;
    return 0;
}

int idalloc_take(const struct rr_id_range *r, bool exact, uint32_t *id, const char *root,
                 const char *cid, int *held, struct rr_error *err)
{
    return take(r, exact, 1, id, root, cid, held, err);
}

int idalloc_take_block(const struct rr_id_range *r, uint32_t size, uint32_t *first,
                       const char *root, const char *cid, int *held, struct rr_error *err)
{
    if (size == 0 || r->count % size != 0)
        return rr_fail(err, EINVAL, "host id blocks of %u in a range of %u ids", size, r->count);
    return take(r, false, size, first, root, cid, held, err);
}

void idalloc_drop(uint32_t id, int *held)
{
    char name[16];
    struct rr_error ignored;
    _cleanup_close_ int dfd = -1;

    if (*held < 0)
        return;
    snprintf(name, sizeof(name), "%u", (unsigned)id);
    /* Ours while held: no reclaimer frees a held id, no taker links over it. */
    if ((dfd = ida_open_dir(false, &ignored)) >= 0 && ida_lock_dir(dfd, &ignored) == 0)
        ida_creator_gone(dfd, name, id);
    close(*held);
    *held = -1;
}

/* For each entry of the directory (locked): fn(dfd, name, ctx). */
int ida_each_entry(int dfd, int (*fn)(int, const char *, void *), void *ctx,
                      struct rr_error *err)
{
    /* its own open file (not a dup: a dup shares the offset, and a walk
     * inside a walk, as reclaim looks at claims, would see nothing) */
    int copy = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct dirent *de;
    DIR *d;
    int r = 0;

    if (copy < 0 || (d = fdopendir(copy)) == NULL) {
        int e = errno;
        if (copy >= 0)
            close(copy);
        return rr_fail(err, e, "read %s", IDALLOC_DIR);
    }
    while (r == 0 && (errno = 0, de = readdir(d)) != NULL)
        if (de->d_name[0] != '.' || strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0)
            r = fn(dfd, de->d_name, ctx);
    closedir(d);
    return r;
}

struct release_ctx {
    const char *root, *cid;
};

static int release_one(int dfd, const char *name, void *arg)
{
    const struct release_ctx *rc = arg;
    _cleanup_close_ int fd = -1;
    struct record rec;
    uint32_t id;

    if (!ida_name_id(name, &id)) {
        ida_claim_release(dfd, name, rc->root, rc->cid);
        return 0;
    }
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || ida_record_read(fd, &rec) < 0)
        return 0;
    /* the block stays while a later container of its pod holds it */
    if (strcmp(rec.cid, rc->cid) == 0 && strcmp(rec.root, rc->root) == 0)
        ida_creator_gone(dfd, name, id);
    return 0;
}

int idalloc_release(const char *root, const char *cid, struct rr_error *err)
{
    struct release_ctx rc = {root, cid};
    _cleanup_close_ int dfd = ida_open_dir(false, err);

    if (dfd < 0)
        return err->errnum == ENOENT ? 0 : rr_wrap(err, "release host id");
    if (ida_lock_dir(dfd, err) < 0 || ida_each_entry(dfd, release_one, &rc, err) < 0)
        return rr_wrap(err, "release host id");
    return 0;
}

/* ---- an engine block's holder: its container's init ---- */

int idalloc_hold_init(int held, pid_t init, struct rr_error *err)
{
    unsigned long long dev, ino;
    struct proc_ref ref;
    char line[128];
    off_t end;
    int n;

    if (proc_ref_of(init, &ref, err) < 0)
        return rr_wrap(err, "hold the host id block for its container's process");
    if (proc_pidns_self(&dev, &ino) < 0)
        return rr_fail(err, errno, "hold the host id block: /proc is not this pid namespace's, "
                                   "so its container's process cannot be named in it");
    n = snprintf(line, sizeof(line), "init %d %llu %llu:%llu\n", (int)ref.pid, ref.start_time,
                 dev, ino);
    /* Appended while held (flock): no reclaimer reads the record meanwhile. */
    end = lseek(held, 0, SEEK_END);
    if (end < 0 || end + n > RECORD_MAX || ida_write_all(held, line, (size_t)n) < 0)
        return rr_fail(err, end < 0 ? errno : EIO, "hold the host id block in %s", IDALLOC_DIR);
    return 0;
}

/* The record's init lines: ALIVE when one of them lives; UNKNOWN when one
 * was recorded in another pid namespace than this one's (its pid names
 * nothing here) or cannot be read; GONE when each has exited; NONE when
 * there is none (an agent container's record: its monitor holds it). */
enum init_state ida_record_init(const char *text)
{
    unsigned long long dev = 0, ino = 0, start, d, i;
    bool here = proc_pidns_self(&dev, &ino) == 0;
    enum init_state st = INIT_NONE;
    int pid;

    for (const char *l = strstr(text, "\ninit "); l != NULL; l = strstr(l + 1, "\ninit ")) {
        if (sscanf(l + 6, "%d %llu %llu:%llu", &pid, &start, &d, &i) != 4 || pid <= 0 || !here ||
            d != dev || i != ino)
            return INIT_UNKNOWN;
        if (proc_ref_alive(&(struct proc_ref){(pid_t)pid, start}))
            return INIT_ALIVE;
        st = INIT_GONE;
    }
    return st;
}

struct reclaim_ctx {
    void (*note)(void *, const char *);
    void *arg;
};

/* The container's state directory is still there (seen from here). */
bool ida_state_present(const char *root, const char *cid)
{
    _cleanup_close_ int rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    return rfd >= 0 && fstatat(rfd, cid, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           S_ISDIR(st.st_mode);
}

/* Its first holder was released while a claim remained. */
static bool released(const struct record *rec)
{
    return strstr(rec->text, "\nreleased\n") != NULL;
}

static int reclaim_one(int dfd, const char *name, void *arg)
{
    const struct reclaim_ctx *rc = arg;
    _cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct record rec;
    struct claims cl;
    enum init_state init;
    char line[4400];
    uint32_t id;
    bool tmp = name[0] == '.';

    if (fd < 0)
        return 0;
    if (!tmp && !ida_name_id(name, &id)) {
        ida_claim_orphan(dfd, name);
        return 0;
    }
    /* Held: its container's monitor, or a create under way. */
    if (flock(fd, LOCK_EX | LOCK_NB) < 0)
        return 0;
    if (tmp) {
        unlinkat(dfd, name, 0); /* a taker that died before naming an id */
        return 0;
    }
    if (ida_record_read(fd, &rec) < 0) {
        snprintf(line, sizeof(line), "kept host id %u: its record in %s is unreadable",
                 (unsigned)id, IDALLOC_DIR);
        rc->note(rc->arg, line);
        return 0;
    }
    /* An engine container's block: held while its init, or the init of a
     * later container of its pod (a claim), lives, wherever its state root
     * is visible. */
    ida_claims_of(dfd, id, &cl);
    init = ida_record_init(rec.text);
    if (init == INIT_ALIVE || cl.busy || cl.alive || cl.state)
        return 0;
    if (init == INIT_UNKNOWN || cl.unknown) {
        snprintf(line, sizeof(line), "kept host id %u of %s (state root %s): its process was "
                 "recorded in another pid namespace, where a sweep can tell whether it lives",
                 (unsigned)id, rec.cid, rec.root);
        rc->note(rc->arg, line);
        return 0;
    }
    if (!released(&rec) && ida_state_present(rec.root, rec.cid))
        return 0; /* destroy (or sweep of its state root) releases it */
    ida_claims_drop(dfd, id); /* first: no claim outlives its record */
    if (unlinkat(dfd, name, 0) < 0)
        return 0;
    snprintf(line, sizeof(line), "released host id %u of %s (state root %s): %s",
             (unsigned)id, rec.cid, rec.root,
             init == INIT_GONE ? "its process and its state are gone" : "its state is gone");
    rc->note(rc->arg, line);
    return 0;
}

int idalloc_reclaim(void (*note)(void *arg, const char *line), void *arg, struct rr_error *err)
{
    struct reclaim_ctx rc = {note, arg};
    _cleanup_close_ int dfd = ida_open_dir(false, err);

    if (dfd < 0)
        return err->errnum == ENOENT ? 0 : rr_wrap(err, "reclaim host ids");
    if (ida_lock_dir(dfd, err) < 0 || ida_each_entry(dfd, reclaim_one, &rc, err) < 0)
        return rr_wrap(err, "reclaim host ids");
    return 0;
}

struct count_ctx {
    const struct rr_id_range *r;
    long n;
};

static int count_one(int dfd, const char *name, void *arg)
{
    struct count_ctx *cc = arg;
    uint32_t id;

    (void)dfd;
    if (ida_name_id(name, &id) && id >= cc->r->first && id - cc->r->first < cc->r->count)
        cc->n++;
    return 0;
}

long idalloc_in_use(const struct rr_id_range *r, struct rr_error *err)
{
    struct count_ctx cc = {r, 0};
    _cleanup_close_ int dfd = ida_open_dir(false, err);

    if (dfd < 0)
        return err->errnum == ENOENT ? 0 : -1;
    if (ida_each_entry(dfd, count_one, &cc, err) < 0)
        return -1;
    return cc.n;
}
