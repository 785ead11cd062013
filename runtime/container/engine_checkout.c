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

static int check_export(const struct profile *p, int state_dir, struct rr_error *err)
{
    const char *name = p->eng.export_dir + strlen(p->eng.export_root) + 1;
    _cleanup_close_ int root = -1;
    struct stat st;
    char line[sizeof(p->eng.export_dir) + 1];

    if (p->eng.export_dir[0] == '\0')
        return 0;
    if ((root = open_export_root(p->eng.export_root, err)) < 0)
        return -1;
    if (fstatat(root, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
        return rr_fail(err, errno ? errno : EEXIST, "io.revrun.export: %s exists already (each "
                                                    "container exports into a fresh directory)",
                       p->eng.export_dir);
    snprintf(line, sizeof(line), "%s\n", p->eng.export_dir);
    return rr_write_atomic(state_dir, ENGINE_EXPORT_FILE, line, strlen(line), 0600, err);
}

int engine_checkout_open(const struct profile *p, int state_dir, const struct cgroup_plan *cg,
                         struct engine_checkout *ck, struct rr_error *err)
{
    const char *name;

    if (p->lower == NULL)
        return 0;
    if (check_export(p, state_dir, err) < 0)
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
