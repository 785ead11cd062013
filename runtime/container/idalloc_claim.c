/* A pod's later containers as holders of its id block (idalloc.h): each
 * one that joins the pod's user namespace has a claim, the file "ID.CID"
 * beside the block's record "ID", with its state root and, once spawned,
 * its init ("init PID START DEV:INO", as the record's). The block is kept
 * while any holder lives or has its state, and goes with the last: the
 * first container's release marks the record "released" while claims
 * remain, and the last claim's release then removes it.
 *
 * Every step runs with the directory locked (exclusive), as reclaim and
 * release do: a join finds the record and a live holder in the pod's user
 * namespace and adds its claim in that one step, so no reclaim can free
 * the block between the look and the claim. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/state.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "runtime/container/idalloc.h"
#include "runtime/container/idalloc_int.h"

#define CLAIM_MAX 4608 /* "root PATH\n" and an init line or two */

bool ida_claim_name(const char *name, uint32_t *id, char *cid, size_t len)
{
    const char *dot = strchr(name, '.');
    char num[16];

    if (dot == NULL || dot == name || (size_t)(dot - name) >= sizeof(num) ||
        strlen(dot + 1) >= len)
        return false;
    memcpy(num, name, (size_t)(dot - name));
    num[dot - name] = '\0';
    snprintf(cid, len, "%s", dot + 1);
    return ida_name_id(num, id) && rr_id_valid(cid);
}

/* The claim's text (NUL-terminated), its root line checked; -1 if not. */
static int claim_read(int fd, char *text, char *root, size_t root_len)
{
    ssize_t n;
    char *nl;

    do
        n = pread(fd, text, CLAIM_MAX, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    text[n] = '\0';
    if (strncmp(text, "root /", 6) != 0 || (nl = strchr(text, '\n')) == NULL ||
        (size_t)(nl - text - 5) >= root_len)
        return -1;
    memcpy(root, text + 5, (size_t)(nl - text - 5));
    root[nl - text - 5] = '\0';
    return 0;
}

struct claims_ctx {
    uint32_t id;
    struct claims *c;
    bool drop;
};

static int claim_look(int dfd, const char *name, void *arg)
{
    struct claims_ctx *cc = arg;
    char cid[RR_ID_MAX + 1], root[4096], text[CLAIM_MAX + 1];
    _cleanup_close_ int fd = -1;
    uint32_t id;
    enum init_state st;

    if (!ida_claim_name(name, &id, cid, sizeof(cid)) || id != cc->id)
        return 0;
    if (cc->drop) {
        unlinkat(dfd, name, 0);
        return 0;
    }
    cc->c->n++;
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    /* held: the create that claimed it is under way */
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
        cc->c->busy = true;
        return 0;
    }
    if (claim_read(fd, text, root, sizeof(root)) < 0)
        return 0; /* its create died before writing it: no holder */
    st = ida_record_init(text);
    cc->c->alive |= st == INIT_ALIVE;
    cc->c->unknown |= st == INIT_UNKNOWN;
    cc->c->state |= ida_state_present(root, cid);
    return 0;
}

void ida_claims_of(int dfd, uint32_t id, struct claims *c)
{
    struct claims_ctx cc = {id, c, false};
    struct rr_error ignored;

    *c = (struct claims){0};
    /* unreadable directory: counted as held, never freed on a guess */
    if (ida_each_entry(dfd, claim_look, &cc, &ignored) < 0)
        c->busy = true, c->n++;
}

void ida_claims_drop(int dfd, uint32_t id)
{
    struct claims c;
    struct claims_ctx cc = {id, &c, true};
    struct rr_error ignored;

    ida_each_entry(dfd, claim_look, &cc, &ignored);
}

void ida_creator_gone(int dfd, const char *name, uint32_t id)
{
    _cleanup_close_ int fd = -1;
    struct claims c;
    struct record *rec;

    ida_claims_of(dfd, id, &c);
    if (c.n == 0) {
        unlinkat(dfd, name, 0);
        return;
    }
    /* kept for the claims; marked so the last one's release frees it */
    fd = openat(dfd, name, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    rec = malloc(sizeof(*rec));
    if (fd >= 0 && rec != NULL && ida_record_read(fd, rec) == 0 &&
        strstr(rec->text, "\nreleased\n") == NULL)
        (void)ida_write_all(fd, "released\n", 9);
    free(rec);
}

/* The record of block id goes when released and no claim remains. */
static void settle(int dfd, uint32_t id)
{
    _cleanup_close_ int fd = -1;
    struct claims c;
    struct record *rec;
    char name[16];
    bool gone;

    snprintf(name, sizeof(name), "%u", (unsigned)id);
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || (rec = malloc(sizeof(*rec))) == NULL)
        return;
    gone = ida_record_read(fd, rec) == 0 && strstr(rec->text, "\nreleased\n") != NULL;
    free(rec);
    if (!gone)
        return;
    ida_claims_of(dfd, id, &c);
    if (c.n == 0)
        unlinkat(dfd, name, 0);
}

void ida_claim_release(int dfd, const char *name, const char *root, const char *cid)
{
    char ccid[RR_ID_MAX + 1], croot[4096], text[CLAIM_MAX + 1];
    _cleanup_close_ int fd = -1;
    uint32_t id;

    if (!ida_claim_name(name, &id, ccid, sizeof(ccid)) || strcmp(ccid, cid) != 0)
        return;
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || claim_read(fd, text, croot, sizeof(croot)) < 0 || strcmp(croot, root) != 0)
        return;
    if (unlinkat(dfd, name, 0) == 0)
        settle(dfd, id);
}

void ida_claim_orphan(int dfd, const char *name)
{
    char cid[RR_ID_MAX + 1], rec[16];
    _cleanup_close_ int fd = -1;
    struct stat st;
    uint32_t id;

    if (!ida_claim_name(name, &id, cid, sizeof(cid)))
        return;
    snprintf(rec, sizeof(rec), "%u", (unsigned)id);
    if (fstatat(dfd, rec, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
        return;
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        unlinkat(dfd, name, 0);
}

/* ---- joining ---- */

/* One of text's init lines is a live process (of this pid namespace) whose
 * user namespace is want. */
static bool init_in_userns(const char *text, const struct stat *want)
{
    unsigned long long dev = 0, ino = 0, start, d, i;
    int pid;

    if (proc_pidns_self(&dev, &ino) < 0)
        return false;
    for (const char *l = strstr(text, "\ninit "); l != NULL; l = strstr(l + 1, "\ninit ")) {
        _cleanup_close_ int dir = -1, pidfd = -1;
        struct proc_ref ref;
        struct stat st;
        char path[32];

        if (sscanf(l + 6, "%d %llu %llu:%llu", &pid, &start, &d, &i) != 4 || pid <= 0 ||
            d != dev || i != ino)
            continue;
        ref = (struct proc_ref){(pid_t)pid, start};
        snprintf(path, sizeof(path), "/proc/%d", pid);
        /* opened first, then checked: the directory is that process's */
        if ((dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
            (pidfd = proc_ref_pidfd(&ref)) < 0 || fstatat(dir, "ns/user", &st, 0) < 0)
            continue;
        if (st.st_dev == want->st_dev && st.st_ino == want->st_ino)
            return true;
    }
    return false;
}

struct live_ctx {
    uint32_t id;
    const struct stat *want;
    bool found;
};

static int claim_live(int dfd, const char *name, void *arg)
{
    struct live_ctx *lc = arg;
    char cid[RR_ID_MAX + 1], root[4096], text[CLAIM_MAX + 1];
    _cleanup_close_ int fd = -1;
    uint32_t id;

    if (lc->found || !ida_claim_name(name, &id, cid, sizeof(cid)) || id != lc->id)
        return 0;
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && claim_read(fd, text, root, sizeof(root)) == 0)
        lc->found = init_in_userns(text, lc->want);
    return 0;
}

/* The block's record names a live holder in the pod's user namespace. */
static int check_block(int dfd, uint32_t first, const struct stat *want, struct rr_error *err)
{
    struct live_ctx lc = {first, want, false};
    _cleanup_free_ struct record *rec = malloc(sizeof(*rec));
    _cleanup_close_ int fd = -1;
    char name[16];

    if (rec == NULL)
        return rr_fail(err, ENOMEM, "host id record");
    snprintf(name, sizeof(name), "%u", (unsigned)first);
    fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return rr_fail(err, EPERM,
                       "the pod's host id block %u-%u has no record in %s (freed, or never "
                       "taken): a container joins a pod's block only while revrun holds it "
                       "for the pod, never one it may give another container",
                       (unsigned)first, (unsigned)(first + (POLICY_ENGINE_BLOCK - 1)),
                       IDALLOC_DIR);
    if (fd < 0)
        return rr_fail(err, errno, "the pod's host id record %s/%s", IDALLOC_DIR, name);
    if (ida_record_read(fd, rec) < 0)
        return rr_fail(err, EPERM, "the pod's host id record %s/%s is unreadable", IDALLOC_DIR,
                       name);
    if (init_in_userns(rec->text, want))
        return 0;
    if (ida_each_entry(dfd, claim_live, &lc, err) < 0)
        return -1;
    if (!lc.found)
        return rr_fail(err, EPERM,
                       "the pod's host id block %u (container %s's) has no live holder in the "
                       "pod's user namespace: it is being freed, and is never joined",
                       (unsigned)first, rec->cid);
    return 0;
}

static int claim_make(int dfd, uint32_t first, const char *root, const char *cid,
                      struct rr_error *err)
{
    char name[RR_ID_MAX + 24], text[4200];
    int fd, n;

    snprintf(name, sizeof(name), "%u.%s", (unsigned)first, cid);
    n = snprintf(text, sizeof(text), "root %s\n", root);
    if (n < 0 || (size_t)n >= sizeof(text))
        return rr_fail(err, ENAMETOOLONG, "host id claim");
    fd = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return rr_fail(err, errno, "host id claim %s/%s", IDALLOC_DIR, name);
    if (flock(fd, LOCK_SH) < 0 || ida_write_all(fd, text, (size_t)n) < 0) {
        int e = errno;
        close(fd);
        unlinkat(dfd, name, 0);
        return rr_fail(err, e, "host id claim %s/%s", IDALLOC_DIR, name);
    }
    return fd;
}

int idalloc_join(uint32_t first, int userns_fd, const char *root, const char *cid, int *held,
                 struct rr_error *err)
{
    _cleanup_close_ int dfd = -1;
    struct stat want;

    *held = -1;
    if (root[0] != '/' || strchr(root, '\n') != NULL || !rr_id_valid(cid))
        return rr_fail(err, EINVAL, "state root %s: not a path a host id claim can name", root);
    if (fstat(userns_fd, &want) < 0)
        return rr_fail(err, errno, "the pod's user namespace");
    if ((dfd = ida_open_dir(false, err)) < 0) {
        if (err->errnum == ENOENT)
            return rr_fail(err, EPERM, "the pod's host id block %u has no record (%s is "
                                       "missing): never joined", (unsigned)first, IDALLOC_DIR);
        return -1;
    }
    /* the look and the claim in one locked step (reclaim locks it too) */
    if (ida_lock_dir(dfd, err) < 0 || check_block(dfd, first, &want, err) < 0)
        return -1;
    *held = claim_make(dfd, first, root, cid, err);
    return *held < 0 ? -1 : 0;
}

void idalloc_leave(uint32_t first, const char *cid, int *held)
{
    char name[RR_ID_MAX + 24];
    struct rr_error ignored;
    _cleanup_close_ int dfd = -1;

    if (*held < 0)
        return;
    snprintf(name, sizeof(name), "%u.%s", (unsigned)first, cid);
    if ((dfd = ida_open_dir(false, &ignored)) >= 0 && ida_lock_dir(dfd, &ignored) == 0 &&
        unlinkat(dfd, name, 0) == 0)
        settle(dfd, first);
    close(*held);
    *held = -1;
}
