/* Is a tree the host's own? (see host_trees.h) */
#include "runtime/confine/host_trees.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

/* Deeper than any path the kernel resolves in one go (PATH_MAX / 2). */
#define WALK_MAX 2048

const char *const host_system_dirs[] = {
    "/",         "/etc",     "/usr",     "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/local",
    "/root",     "/var",     "/var/lib", "/var/log", "/var/tmp",  "/home",    "/boot",
    "/bin",      "/sbin",    "/lib",     "/lib32",   "/lib64",    "/libx32",  "/opt",
    "/srv",      "/run",     "/tmp",     "/dev",     "/proc",     "/sys",     NULL,
};

/* /root: root's home (keys, tokens, shell history) is root's alone, and a
 * tree under it is shown with its files' host owners; the kubelet's
 * credentials likewise. */
const char *const host_private_dirs[] = {"/etc", "/boot", "/root", "/var/lib/kubelet/pki",
                                         "/proc", "/sys", "/dev", NULL};

static bool same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Up from fd (taken) through "..", to the top of the tree it is reached
 * in: 0 when want is not met, 1 when fd is want, 2 when an ancestor is;
 * -1 (errno) when the walk cannot go on. */
static int walk_up(int fd, const struct stat *want)
{
    struct stat cur, up;

    if (fstat(fd, &cur) < 0)
        goto fail;
    for (int step = 0; step < WALK_MAX; step++) {
        int parent;
        if (same(&cur, want)) {
            close(fd);
            return step == 0 ? 1 : 2;
        }
        parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0 || fstat(parent, &up) < 0) {
            if (parent >= 0)
                close(parent);
            goto fail;
        }
        close(fd);
        fd = parent;
        if (same(&up, &cur)) { /* the top: ".." is itself */
            close(fd);
            return 0;
        }
        cur = up;
    }
    errno = ELOOP;
fail:
    {
        int e = errno;
        close(fd);
        errno = e;
    }
    return -1;
}

/* dir opened (O_PATH); ENOENT/ENOTDIR: -2 (skipped: this host has none) */
static int open_dir(const char *dir, struct stat *st)
{
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? -2 : -1;
    if (fstat(fd, st) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Is the tree (t) a system directory (pass 1), or an ancestor of one? */
static int judge_system(const struct stat *t, bool ancestors, struct host_tree_verdict *v,
                        struct rr_error *err)
{
    for (size_t i = 0; host_system_dirs[i] != NULL; i++) {
        struct stat d;
        int fd = open_dir(host_system_dirs[i], &d), k;
        if (fd == -2)
            continue;
        if (fd < 0)
            return rr_fail(err, errno, "the host's %s", host_system_dirs[i]);
        if (!ancestors) {
            close(fd);
            k = same(&d, t) ? 1 : 0;
        } else if ((k = walk_up(fd, t)) < 0) {
            return rr_fail(err, errno, "the host's %s", host_system_dirs[i]);
        }
        if (k > 0) {
            v->kind = k == 1 ? HOST_TREE_IS : HOST_TREE_HOLDS;
            v->which = host_system_dirs[i];
            return 1;
        }
    }
    return 0;
}

/* The highest ancestor of dir_fd on its filesystem (the same st_dev). */
static int fs_top(int dir_fd, const struct stat *d)
{
    struct stat here, up;
    int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);

    for (int step = 0; fd >= 0 && step < WALK_MAX; step++) {
        int parent = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0)
            return fd;
        if (fstat(parent, &up) < 0 || fstat(fd, &here) < 0 || up.st_dev != d->st_dev ||
            same(&here, &up)) {
            close(parent);
            return fd;
        }
        close(fd);
        fd = parent;
    }
    return fd;
}

/* The tree's real place on dir's filesystem, whatever bind mount shows it:
 * reopened from its file handle under the filesystem's top, then walked
 * up. 1 inside dir, 0 not, -1 when it cannot be told. */
static int inside_by_handle(int tree_fd, int dir_fd, const struct stat *d)
{
    union {
        struct file_handle fh;
        char buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
    } h;
    _cleanup_close_ int top = -1;
    _cleanup_close_ int ro = -1;
    int mnt_id, fd;

    h.fh.handle_bytes = MAX_HANDLE_SZ;
    if (name_to_handle_at(tree_fd, "", &h.fh, &mnt_id, AT_EMPTY_PATH) < 0)
        return -1;
    top = fs_top(dir_fd, d);
    if (top < 0)
        return -1;
    /* open_by_handle_at takes no O_PATH fd for the mount */
    ro = openat(top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ro < 0)
        return -1;
    fd = open_by_handle_at(ro, &h.fh, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    return walk_up(fd, d) > 0 ? 1 : 0;
}

/* Does the tree lie inside one of host_private_dirs? By its path as this
 * mount namespace shows it, then by its place on the filesystem. */
static int judge_private(int tree_fd, const struct stat *t, struct host_tree_verdict *v,
                         struct rr_error *err)
{
    for (size_t i = 0; host_private_dirs[i] != NULL; i++) {
        struct stat d;
        _cleanup_close_ int dir = open_dir(host_private_dirs[i], &d);
        int up, k;
        if (dir == -2)
            continue;
        if (dir < 0)
            return rr_fail(err, errno, "the host's %s", host_private_dirs[i]);
        up = fcntl(tree_fd, F_DUPFD_CLOEXEC, 3);
        k = up < 0 ? -1 : walk_up(up, &d);
        if (k == 0 && t->st_dev == d.st_dev)
            k = inside_by_handle(tree_fd, dir, &d);
        if (k != 0) { /* inside, or its place cannot be told */
            v->kind = HOST_TREE_INSIDE;
            v->which = host_private_dirs[i];
            return 1;
        }
    }
    return 0;
}

int host_tree_judge(int tree_fd, struct host_tree_verdict *v, struct rr_error *err)
{
    struct stat t;
    int k;

    v->kind = HOST_TREE_NOT;
    v->which = NULL;
    if (fstat(tree_fd, &t) < 0)
        return rr_fail(err, errno, "root.path");
    if ((k = judge_system(&t, false, v, err)) != 0 || (k = judge_system(&t, true, v, err)) != 0)
        return k < 0 ? -1 : 0;
    return judge_private(tree_fd, &t, v, err) < 0 ? -1 : 0;
}

const char *host_tree_says(const struct host_tree_verdict *v)
{
    static char text[96];
    static const char *const verb[] = {"is none of", "is", "holds", "lies in"};

    snprintf(text, sizeof(text), "%s the host's %s", verb[v->kind],
             v->which != NULL ? v->which : "system directories");
    return text;
}
