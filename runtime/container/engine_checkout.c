#include "runtime/container/engine_checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bundle/policy.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/container/statedir.h"

void engine_checkout_init(struct engine_checkout *ck)
{
    ck->store.upper_fd = ck->store.work_fd = -1;
    ck->lower_mfd = -1;
    backend_init(&ck->backend);
    memset(&ck->helper, 0, sizeof(ck->helper));
    ck->have_backend = false;
}

void engine_checkout_close(struct engine_checkout *ck, bool ok)
{
    overlay_store_close(&ck->store);
    if (ck->lower_mfd >= 0)
        close(ck->lower_mfd);
    if (ck->have_backend) {
        if (ok)
            fuse_daemon_release(&ck->backend.fuse);
        backend_stop(&ck->backend);
        seccomp_progs_free(&ck->helper);
    }
    engine_checkout_init(ck);
}

int engine_checkout_view(const struct engine_checkout *ck)
{
    return ck->have_backend ? backend_view(&ck->backend) : -1;
}

const char *engine_checkout_backend(int state_dir, char *buf, size_t len)
{
    _cleanup_free_ char *text = NULL;
    size_t n = 0;
    struct rr_error ignored;

    if (rr_read_file(state_dir, ENGINE_FORMAT_FILE, 16, &text, &n, &ignored) < 0)
        return NULL;
    if (strcmp(text, "fuse") != 0 && strcmp(text, "native") != 0)
        return NULL;
    snprintf(buf, len, "%s", text);
    return buf;
}

/* The default root is made when missing (root's, 0700); any root must be a
 * directory of root's that nobody else may write: revrun writes the export
 * there as root, under a name the engine chose. */
static int open_export_root(const char *root, struct rr_error *err)
{
    struct stat st;
    int fd;

    if (strcmp(root, RR_POLICY_EXPORT_ROOT) == 0) {
        if (mkdir("/var/lib/revrun", 0755) < 0 && errno != EEXIST)
            return rr_fail(err, errno, "io.revrun.export: mkdir /var/lib/revrun");
        if (mkdir(root, 0700) < 0 && errno != EEXIST)
            return rr_fail(err, errno, "io.revrun.export: mkdir %s", root);
    }
    fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "io.revrun.export: the policy's exportRoot %s", root);
    if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        close(fd);
        return rr_fail(err, EPERM, "io.revrun.export: the policy's exportRoot %s must be root's "
                                   "and writable by nobody else", root);
    }
    return fd;
}

/* The claim: EXPORTROOT/NAME is made at create (mkdir decides: one name,
 * one container), holding CLAIM_FILE with the container's id; delete
 * swaps the export in for it (RENAME_EXCHANGE), so the name is never free
 * while it is held (review2 F7). */
#define CLAIM_FILE ".claim"
#define ORIGIN_FILE "origin"

/* The claim's holder, read from under root (nothing followed); "" when
 * there is no claim file (an export, or something else). */
static void read_claim(int root, const char *name, char *who, size_t len)
{
    _cleanup_close_ int d = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_close_ int f = -1;
    ssize_t n;

    who[0] = '\0';
    if (d < 0 || (f = openat(d, CLAIM_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return;
    n = read(f, who, len - 1);
    if (n <= 0) {
        who[0] = '\0';
        return;
    }
    who[n] = '\0';
    who[strcspn(who, "\n")] = '\0';
    for (char *c = who; *c; c++)
        if (*c < 0x21 || *c > 0x7e)
            *c = '?'; /* shown in a message: printable only */
}

static int check_export(const struct profile *p, int state_dir, const char *id,
                        struct rr_error *err)
{
    const char *name = p->eng.export_dir + strlen(p->eng.export_root) + 1;
    _cleanup_close_ int root = -1, d = -1;
    char line[sizeof(p->eng.export_dir) + 1], who[256];

    if (p->eng.export_dir[0] == '\0')
        return 0;
    if ((root = open_export_root(p->eng.export_root, err)) < 0)
        return -1;
    if (mkdirat(root, name, 0700) < 0) {
        int e = errno;
        if (e != EEXIST)
            return rr_fail(err, e, "io.revrun.export: %s", p->eng.export_dir);
        read_claim(root, name, who, sizeof(who));
        if (who[0] != '\0')
            return rr_fail(err, EEXIST, "io.revrun.export: %s is held by container %s (one "
                                        "name, one container: released at its delete)",
                           p->eng.export_dir, who);
        return rr_fail(err, EEXIST, "io.revrun.export: %s exists already (each container "
                                    "exports into a fresh directory)", p->eng.export_dir);
    }
    d = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    snprintf(line, sizeof(line), "%s\n", id);
    if (d < 0 || rr_write_atomic(d, CLAIM_FILE, line, strlen(line), 0600, err) < 0) {
        if (d < 0)
            rr_fail(err, errno, "io.revrun.export: %s", p->eng.export_dir);
        unlinkat(root, name, AT_REMOVEDIR);
        return rr_wrap(err, "io.revrun.export: claim %s", p->eng.export_dir);
    }
    snprintf(line, sizeof(line), "%s\n", p->eng.export_dir);
    if (rr_write_atomic(state_dir, ENGINE_EXPORT_FILE, line, strlen(line), 0600, err) < 0) {
        unlinkat(d, CLAIM_FILE, 0);
        unlinkat(root, name, AT_REMOVEDIR);
        return -1;
    }
    return 0;
}

/* dir "/R/NAME": R opened (checked as create checked it), NAME */
static int export_parent(const char *dir, char *parent, size_t len, const char **name,
                         struct rr_error *err)
{
    const char *slash = strrchr(dir, '/');

    if (slash == NULL || slash[1] == '\0' || (size_t)(slash - dir) + 1 > len)
        return rr_fail(err, EINVAL, "io.revrun.export: %s: not a path", dir);
    snprintf(parent, len, "%.*s", slash == dir ? 1 : (int)(slash - dir), dir);
    *name = slash + 1;
    return open_export_root(parent, err);
}

/* root/name holding nothing but a claim file: removed */
static int drop_claim_dir(int root, const char *name, struct rr_error *err)
{
    _cleanup_close_ int d = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (d < 0 || (unlinkat(d, CLAIM_FILE, 0) < 0 && errno != ENOENT) ||
        unlinkat(root, name, AT_REMOVEDIR) < 0)
        return rr_fail(err, errno, "io.revrun.export: remove the claim %s", name);
    return 0;
}

int engine_export_stage(const char *dir, const char *id, char *tmp, size_t len,
                        struct rr_error *err)
{
    char parent[4096], who[256];
    const char *name;
    _cleanup_close_ int root = export_parent(dir, parent, sizeof(parent), &name, err);

    if (root < 0)
        return -1;
    read_claim(root, name, who, sizeof(who));
    if (strcmp(who, id) != 0)
        return rr_fail(err, EPERM, "io.revrun.export: %s is not this container's claim", dir);
    if ((size_t)snprintf(tmp, len, "%s/.export-%s", strcmp(parent, "/") == 0 ? "" : parent,
                         id) >= len)
        return rr_fail(err, ENAMETOOLONG, "io.revrun.export: %s", dir);
    /* a delete of this id that died after the swap left its claim there */
    if (faccessat(root, strrchr(tmp, '/') + 1, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
        drop_claim_dir(root, strrchr(tmp, '/') + 1, err) < 0)
        return rr_wrap(err, "a leftover %s", tmp);
    return 0;
}

int engine_export_publish(const char *dir, const char *id, const char *tmp,
                          struct rr_error *err)
{
    char parent[4096], who[256], line[300];
    const char *name, *tname = strrchr(tmp, '/') + 1;
    _cleanup_close_ int root = export_parent(dir, parent, sizeof(parent), &name, err);
    _cleanup_close_ int t = -1;

    if (root < 0)
        return -1;
    t = openat(root, tname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    snprintf(line, sizeof(line), "container %s\n", id);
    if (t < 0 || rr_write_atomic(t, ORIGIN_FILE, line, strlen(line), 0600, err) < 0)
        return t < 0 ? rr_fail(err, errno, "io.revrun.export: %s", tmp) : -1;
    read_claim(root, name, who, sizeof(who));
    if (strcmp(who, id) != 0)
        return rr_fail(err, EPERM, "io.revrun.export: %s is not this container's claim", dir);
    if (renameat2(root, tname, root, name, RENAME_EXCHANGE) < 0)
        return rr_fail(err, errno, "io.revrun.export: %s into %s", tmp, dir);
    /* tmp's name now holds the claim alone (t followed the export) */
    return drop_claim_dir(root, tname, err);
}

void engine_export_release(const char *dir, const char *id)
{
    char parent[4096], who[256];
    const char *name;
    struct rr_error ignored;
    _cleanup_close_ int root = export_parent(dir, parent, sizeof(parent), &name, &ignored);
    _cleanup_close_ int d = -1;

    if (root < 0)
        return;
    read_claim(root, name, who, sizeof(who));
    if (strcmp(who, id) != 0)
        return; /* someone else's, or already an export */
    d = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (d >= 0 && unlinkat(d, CLAIM_FILE, 0) == 0)
        unlinkat(root, name, AT_REMOVEDIR);
}

/* Which tree the lower is, (st_dev, st_ino), as create saw it: diff,
 * export and delete re-open the lower by its host path, which a tenant's
 * other workload may have swapped for a symlink to another tree since
 * (review2 F8). */
static int record_lower(const char *lower, int state_dir, struct rr_error *err)
{
    _cleanup_close_ int fd = open(lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    char line[64];

    if (fd < 0 || fstat(fd, &st) < 0)
        return rr_fail(err, errno, "io.revrun.checkout: %s", lower);
    snprintf(line, sizeof(line), "%llu %llu\n", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino);
    return rr_write_atomic(state_dir, ENGINE_LOWER_FILE, line, strlen(line), 0600, err);
}

int engine_checkout_check_lower(int state_dir, int lower_fd, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    unsigned long long dev, ino;
    struct stat st;
    size_t n = 0;

    if (rr_read_file(state_dir, ENGINE_LOWER_FILE, 64, &text, &n, err) < 0)
        return rr_wrap(err, "the checkout create recorded");
    if (n == 0 || text[n - 1] != '\n' || sscanf(text, "%llu %llu", &dev, &ino) != 2)
        return rr_fail(err, EINVAL, "%s: not \"dev ino\"", ENGINE_LOWER_FILE);
    if (fstat(lower_fd, &st) < 0)
        return rr_fail(err, errno, "the checkout");
    if ((unsigned long long)st.st_dev != dev || (unsigned long long)st.st_ino != ino)
        return rr_fail(err, ESTALE, "the checkout's path now leads to another tree than the "
                                    "one create overlaid (refused: the change set would be "
                                    "judged against it)");
    return 0;
}

int engine_checkout_open(const struct profile *p, int state_dir, const char *id,
                         const struct cgroup_plan *cg, struct engine_checkout *ck,
                         struct rr_error *err)
{
    const char *name;

    if (p->lower == NULL)
        return 0;
    if (check_export(p, state_dir, id, err) < 0 || record_lower(p->lower, state_dir, err) < 0)
        return -1;
    if (mkdirat(state_dir, STORE_DIR, 0700) < 0)
        return rr_fail(err, errno, "io.revrun.checkout: store directory");
    /* owned by the checkout's user (the fuse daemon's identity); the
     * container's root, who mounts a native overlay, may write it too in
     * its user namespace. The upper's root has the lower's mode. */
    if (overlay_store_mount(state_dir, STORE_DIR, p->upper_size, p->lower_mode,
                            p->eng.lower_as_uid, p->eng.lower_as_gid, &ck->store, err) < 0)
        return rr_wrap(err, "io.revrun.checkout");
    ck->have_backend = true;
    if (backend_find(&ck->backend, p, err) < 0 || seccomp_compile_helper(&ck->helper, err) < 0)
        return rr_wrap(err, "io.revrun.checkout");
    if (backend_choose(&ck->backend,
                       &(struct backend_env){p, state_dir, -1, cg->version != CG_NONE ? cg : NULL,
                                             &ck->helper},
                       err) < 0)
        return rr_wrap(err, "io.revrun.checkout %s", p->checkout_path);
    name = backend_name(&ck->backend);
    if (rr_write_atomic(state_dir, ENGINE_FORMAT_FILE, name, strlen(name), 0600, err) < 0)
        return -1;
    if (backend_view(&ck->backend) >= 0)
        return 0;
    ck->lower_mfd = overlay_lower_open(p->lower, p->idmap_lower, p->lower_owner, p->lower_group,
                                       p->eng.lower_as_uid, p->eng.lower_as_gid, err);
    if (ck->lower_mfd < 0)
        return rr_wrap(err, "io.revrun.checkout %s: the lower %s", p->checkout_path, p->lower);
    return 0;
}

/* The store as create mounted it: a tmpfs whose root is state_dir/store. */
static int open_store(int state_dir, bool *mounted, struct rr_error *err)
{
    struct statx stx;
    struct statfs sf;
    int fd = openat(state_dir, STORE_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    *mounted = false;
    if (fd < 0)
        return errno == ENOENT ? -2 : rr_fail(err, errno, "the upper's store");
    if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) < 0 || fstatfs(fd, &sf) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "the upper's store");
    }
    *mounted = (stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
               (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) && sf.f_type == TMPFS_MAGIC;
    return fd;
}

int engine_checkout_unmount(int state_dir, struct rr_error *err)
{
    bool mounted;
    char path[64];
    int fd = open_store(state_dir, &mounted, err);

    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (mounted && umount2(path, MNT_DETACH) < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "unmount the upper's store");
    }
    close(fd);
    return 0;
}

int engine_checkout_open_upper(int state_dir, struct rr_error *err)
{
    bool mounted;
    int fd = open_store(state_dir, &mounted, err), upper;

    if (fd == -2)
        return rr_fail(err, ENOENT, "this engine container has no io.revrun.checkout");
    if (fd < 0)
        return -1;
    if (!mounted) {
        close(fd);
        return rr_fail(err, ENOENT, "the upper's store is not mounted here (it lives in the "
                                    "mount namespace of the engine that created the container)");
    }
    upper = openat(fd, "upper", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (upper < 0)
        rr_fail(err, errno, "open the upper");
    close(fd);
    return upper;
}

int engine_checkout_export_dir(int state_dir, char *out, size_t len, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    size_t n = 0;

    out[0] = '\0';
    if (rr_read_file(state_dir, ENGINE_EXPORT_FILE, len, &text, &n, err) < 0)
        return err->errnum == ENOENT ? 0 : -1;
    if (n == 0 || text[n - 1] != '\n' || text[0] != '/' || memchr(text, '\0', n) != NULL)
        return rr_fail(err, EINVAL, "%s: not one path", ENGINE_EXPORT_FILE);
    snprintf(out, len, "%.*s", (int)(n - 1), text);
    return 0;
}
