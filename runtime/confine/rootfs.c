#include "runtime/confine/rootfs.h"
#include "runtime/confine/rootfs_checkout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "overlay/overlay.h"

/* The device nodes every container gets (bound from the host: an unprivileged
 * user namespace cannot mknod). Nothing else of the host's /dev. */
static const char *const dev_nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};

static const struct {
    const char *link;
    const char *target;
} dev_links[] = {
    {"fd", "/proc/self/fd"},
    {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"},
    {"stderr", "/proc/self/fd/2"},
    {"ptmx", "pts/ptmx"},
};

/* ---- one planned mount ---- */

/* A tree the caller cloned (engine mode) has mount ids older than every
 * mount made here, and /proc/self/mountinfo lists a namespace's mounts by
 * id: cloned again from where it now is (in this namespace) and swapped
 * in, it takes its place in the config's order, as runc's mounts do. The
 * clone keeps every attribute of the original. */
static int renumber(int root, const struct mount_plan *m, struct rr_error *err)
{
    _cleanup_close_ int at = rr_open_in_root(root, m->destination, O_PATH, false);
    _cleanup_close_ int copy = -1;
    _cleanup_close_ int dst = -1;
    char proc_path[64];

    if (at < 0)
        return rr_fail(err, errno, "bind %s: reopen", m->destination);
    copy = rr_open_tree(at, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                                    (m->recursive ? AT_RECURSIVE : 0));
    if (copy < 0)
        return rr_fail(err, errno, "bind %s: clone", m->destination);
    snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", at);
    if (umount2(proc_path, MNT_DETACH) < 0)
        return rr_fail(err, errno, "bind %s: detach the caller's clone", m->destination);
    dst = rr_open_in_root(root, m->destination, O_PATH, false);
    if (dst < 0)
        return rr_fail(err, errno, "bind %s: reopen", m->destination);
    return rr_attach(copy, dst, err) < 0 ? rr_wrap(err, "bind on %s", m->destination) : 0;
}

static int mount_bind(int root, const struct mount_plan *m, int opened, struct rr_error *err)
{
    _cleanup_close_ int src = -1;
    _cleanup_close_ int dst = -1;
    struct stat st;

    /* The source is the operator's host path (resolved normally), or (an
     * engine's) the tree the caller opened with its own credentials; the
     * destination is resolved inside the new root. */
    if (opened >= 0)
        src = fcntl(opened, F_DUPFD_CLOEXEC, 3);
    else
        src = rr_clone_tree(AT_FDCWD, m->source, m->recursive, m->attr, err);
    if (opened >= 0 && src < 0)
        return rr_fail(err, errno, "bind %s", m->source);
    if (src < 0)
        return rr_wrap(err, "bind %s", m->source);
    if (fstat(src, &st) < 0)
        return rr_fail(err, errno, "bind %s", m->source);
    dst = S_ISDIR(st.st_mode) ? rr_mkdir_p_in_root(root, m->destination, 0755, err)
                              : rr_touch_in_root(root, m->destination, 0644, err);
    if (dst < 0)
        return rr_wrap(err, "bind %s: destination", m->source);
    if (rr_attach(src, dst, err) < 0)
        return rr_wrap(err, "bind %s on %s", m->source, m->destination);
    return opened >= 0 ? renumber(root, m, err) : 0;
}

static int mount_fresh(int root, const struct mount_plan *m, int *keep, struct rr_error *err)
{
    static const char *const fstypes[] = {
        [MOUNT_TMPFS] = "tmpfs", [MOUNT_PROC] = "proc", [MOUNT_DEVPTS] = "devpts",
        [MOUNT_MQUEUE] = "mqueue", [MOUNT_SYSFS] = "sysfs", [MOUNT_CGROUP2] = "cgroup2"};
    const char *fstype = fstypes[m->kind];
    _cleanup_close_ int mfd = -1;
    _cleanup_close_ int dst = -1;

    /* Read-only once the mounts below it have their mount points. */
    mfd = rr_make_fs_src(fstype, m->fs_source, (const char *const *)m->fs_options.v,
                         m->fs_options.n,
                         (unsigned)(m->ro_after ? m->attr & ~MOUNT_ATTR_RDONLY : m->attr), err);
    if (mfd < 0)
        return rr_wrap(err, "mount %s on %s", fstype, m->destination);
    dst = rr_mkdir_p_in_root(root, m->destination, 0755, err);
    if (dst < 0)
        return rr_wrap(err, "mount %s: destination", fstype);
    if (rr_attach(mfd, dst, err) < 0)
        return rr_wrap(err, "mount %s on %s", fstype, m->destination);
    if (m->ro_after)
        *keep = rr_steal_fd(&mfd);
    return 0;
}

/* ---- /dev ---- */

static int populate_dev(int root, const char *dev, unsigned allowed, struct rr_error *err)
{
    char path[256];

    for (size_t i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
        _cleanup_close_ int src = -1;
        _cleanup_close_ int dst = -1;
        char host[64];
        if (!(allowed & (1u << i)))
            continue; /* an engine's device rules leave it out */
        snprintf(host, sizeof(host), "/dev/%s", dev_nodes[i]);
        snprintf(path, sizeof(path), "%s/%s", dev, dev_nodes[i]);
        /* Read-only: the node is the host's own inode, and a read-only
         * mount stops utimensat, chmod and chown of it (the agent moved the
         * host /dev/null's mtime), not reads and writes of the device. */
        src = rr_clone_tree(AT_FDCWD, host, false,
                            MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY, err);
        if (src < 0)
            return rr_wrap(err, "device %s", host);
        dst = rr_touch_in_root(root, path, 0666, err);
        if (dst < 0 || rr_attach(src, dst, err) < 0)
            return rr_wrap(err, "device %s", host);
    }
    _cleanup_close_ int devfd = rr_mkdir_p_in_root(root, dev, 0755, err);
    if (devfd < 0)
        return -1;
    _cleanup_close_ int dir = openat(devfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return rr_fail(err, errno, "open %s", dev);
    for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
        if (symlinkat(dev_links[i].target, dir, dev_links[i].link) < 0 && errno != EEXIST)
            return rr_fail(err, errno, "symlink %s/%s", dev, dev_links[i].link);
    if (mkdirat(dir, "pts", 0755) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "mkdir %s/pts", dev);
    if (mkdirat(dir, "shm", 01777) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "mkdir %s/shm", dev);
    return 0;
}

/* HOME made and seeded by the monitor (runtime/home_store.c): the same
 * tmpfs, bound here, so what the agent leaves in it outlives this
 * namespace. */
static int mount_home_store(int root, const struct mount_plan *m, int home_fd,
                            struct rr_error *err)
{
    _cleanup_close_ int src = -1;
    _cleanup_close_ int dst = -1;

    if (home_fd < 0)
        return rr_fail(err, EBADF, "HOME store: not opened");
    src = rr_clone_tree(home_fd, "", false, m->attr, err);
    if (src < 0)
        return rr_wrap(err, "HOME store");
    dst = rr_mkdir_p_in_root(root, m->destination, 0755, err);
    if (dst < 0 || rr_attach(src, dst, err) < 0)
        return rr_wrap(err, "HOME store on %s", m->destination);
    return 0;
}

/* /out: the monitor's tmpfs, attached as it is. */
static int mount_out(int root, const struct mount_plan *m, struct rootfs_fds *fds,
                     struct rr_error *err)
{
    _cleanup_close_ int src = rr_steal_fd(&fds->out_mfd);
    _cleanup_close_ int dst = -1;

    if (src < 0)
        return rr_fail(err, EBADF, "%s: no tmpfs from the monitor", m->destination);
    dst = rr_mkdir_p_in_root(root, m->destination, 0755, err);
    if (dst < 0 || rr_attach(src, dst, err) < 0)
        return rr_wrap(err, "%s", m->destination);
    return 0;
}

static int apply_mounts(int root, const struct profile *p, struct rootfs_fds *fds,
                        struct rr_error *err)
{
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};
    int later[8];
    size_t n_later = 0;
    int r = 0;

    for (size_t i = 0; r == 0 && i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        int opened = fds->bind_fds != NULL && m->kind == MOUNT_BIND ? fds->bind_fds[i] : -1;
        int keep = -1;
        if (m->ro_after && n_later == sizeof(later) / sizeof(later[0]))
            r = rr_fail(err, E2BIG, "too many read-only placeholders");
        if (r == 0)
            r = m->home_store          ? mount_home_store(root, m, fds->home_fd, err)
                : m->kind == MOUNT_BIND ? mount_bind(root, m, opened, err)
                : m->kind == MOUNT_OUT  ? mount_out(root, m, fds, err)
                : m->kind == MOUNT_CHECKOUT ? rootfs_mount_checkout_engine(root, p, m, fds, err)
                                        : mount_fresh(root, m, &keep, err);
        if (keep >= 0)
            later[n_later++] = keep;
        if (r == 0 && m->is_dev && populate_dev(root, m->destination, p->dev_allowed, err) < 0)
            r = -1;
    }
    for (size_t i = 0; i < n_later; i++) {
        if (r == 0 && rr_mount_setattr(later[i], "", AT_EMPTY_PATH, &ro) < 0)
            r = rr_fail(err, errno, "make a placeholder read-only");
        close(later[i]);
    }
    return r;
}

/* ---- /proc and /sys hardening ---- */

static int mask_path(int root, int devnull, const char *path, struct rr_error *err)
{
    _cleanup_close_ int target = rr_open_in_root(root, path, O_PATH | O_NOFOLLOW, true);
    _cleanup_close_ int src = -1;
    struct stat st;

    if (target < 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0; /* nothing there to hide */
    if (target < 0)
        return rr_fail(err, errno, "mask %s", path);
    if (fstat(target, &st) < 0)
        return rr_fail(err, errno, "mask %s", path);
    if (S_ISDIR(st.st_mode)) {
        static const char *const opts[] = {"size=4k", "nr_inodes=1", "mode=0500"};
        src = rr_make_fs("tmpfs", opts, 3, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                                               MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    } else {
        src = rr_clone_tree(devnull, "", false, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                                                    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    }
    if (src < 0 || rr_attach(src, target, err) < 0)
        return rr_wrap(err, "mask %s", path);
    return 0;
}

static int readonly_path(int root, const char *path, struct rr_error *err)
{
    _cleanup_close_ int target = rr_open_in_root(root, path, O_PATH | O_NOFOLLOW, true);
    _cleanup_close_ int src = -1;

    if (target < 0 && (errno == ENOENT || errno == ENOTDIR))
        return 0;
    if (target < 0)
        return rr_fail(err, errno, "read-only %s", path);
    src = rr_clone_tree(target, "", true, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
                                              MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, err);
    if (src < 0 || rr_attach(src, target, err) < 0)
        return rr_wrap(err, "read-only %s", path);
    return 0;
}

static int harden_paths(int root, const struct profile *p, struct rr_error *err)
{
    _cleanup_close_ int devnull = open("/dev/null", O_PATH | O_CLOEXEC);

    if (devnull < 0)
        return rr_fail(err, errno, "open /dev/null");
    for (size_t i = 0; i < p->masked_paths->n; i++)
        if (mask_path(root, devnull, p->masked_paths->v[i], err) < 0)
            return -1;
    for (size_t i = 0; i < p->readonly_paths->n; i++)
        if (readonly_path(root, p->readonly_paths->v[i], err) < 0)
            return -1;
    return 0;
}

/* ---- files revrun writes into the root ---- */

static const char *env_value(const struct profile *p, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < p->env->n; i++)
        if (strncmp(p->env->v[i], name, n) == 0 && p->env->v[i][n] == '=')
            return p->env->v[i] + n + 1;
    return NULL;
}

static int write_new(int root, const char *path, const char *text, struct rr_error *err)
{
    _cleanup_close_ int probe = rr_open_in_root(root, path, O_PATH, false);
    _cleanup_close_ int dir = -1;
    _cleanup_close_ int fd = -1;
    const char *name = strrchr(path, '/') + 1;
    char parent[64];

    if (probe >= 0)
        return 0; /* provided by a mount in the config: keep theirs */
    snprintf(parent, sizeof(parent), "%.*s", (int)(name - path - 1), path);
    _cleanup_close_ int pfd = rr_mkdir_p_in_root(root, parent, 0755, err);
    if (pfd < 0)
        return -1;
    dir = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return rr_fail(err, errno, "open %s", parent);
    fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || rr_write_all(fd, text, strlen(text)) < 0)
        return rr_fail(err, errno, "write %s", path);
    return 0;
}

/* A passwd and group entry for the agent's uid (git, ssh and getpwuid-based
 * tools need one), the hostname files, and git's system configuration when
 * the profile gives one. */
static int write_etc(int root, const struct profile *p, struct rr_error *err)
{
    char passwd[512], group[256], hosts[256], hostname[128];
    const char *home = env_value(p, "HOME");
    const char *host = p->hostname ? p->hostname : "revrun";

    snprintf(passwd, sizeof(passwd),
             "agent:x:%u:%u:revrun agent:%s:/bin/sh\n"
             "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
             (unsigned)p->uid, (unsigned)p->gid, home ? home : "/");
    snprintf(group, sizeof(group), "agent:x:%u:\nnogroup:x:65534:\n", (unsigned)p->gid);
    snprintf(hosts, sizeof(hosts), "127.0.0.1\tlocalhost %s\n::1\tlocalhost ip6-localhost\n",
             host);
    snprintf(hostname, sizeof(hostname), "%s\n", host);
    if (write_new(root, "/etc/passwd", passwd, err) < 0 ||
        write_new(root, "/etc/group", group, err) < 0 ||
        write_new(root, "/etc/hosts", hosts, err) < 0 ||
        write_new(root, "/etc/hostname", hostname, err) < 0 ||
        (p->git_system_config != NULL &&
         write_new(root, "/etc/gitconfig", p->git_system_config, err) < 0) ||
        (p->dns_nxdomain &&
         write_new(root, "/etc/resolv.conf",
                   "# revrun: every name is NXDOMAIN here (egress/dns.h)\n"
                   "nameserver 127.0.0.1\noptions attempts:1 timeout:1\n", err) < 0))
        return rr_wrap(err, "/etc");
    return 0;
}

/* ---- the switch ---- */

static int pivot(int root, bool readonly, struct rr_error *err)
{
    struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

    if (fchdir(root) < 0)
        return rr_fail(err, errno, "pivot_root: chdir into the new root");
    /* pivot_root(".", "."): the old root ends up stacked on the new one and
     * is then detached, leaving nothing of the host's tree reachable. */
    if (syscall(SYS_pivot_root, ".", ".") < 0)
        return rr_fail(err, errno, "pivot_root");
    if (umount2(".", MNT_DETACH) < 0)
        return rr_fail(err, errno, "pivot_root: detach the old root");
    if (chdir("/") < 0)
        return rr_fail(err, errno, "chdir /");
    if (readonly && rr_mount_setattr(AT_FDCWD, "/", 0, &ro) < 0)
        return rr_fail(err, errno, "make the root read-only");
    return 0;
}

static int new_root(int mountpoint, struct rr_error *err)
{
    static const char *const opts[] = {"mode=0755", "size=16m", "nr_inodes=16384"};
    int mfd = rr_make_fs("tmpfs", opts, 3, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, err);

    if (mfd < 0)
        return rr_wrap(err, "root tmpfs");
    if (rr_attach(mfd, mountpoint, err) < 0) {
        close(mfd);
        return rr_wrap(err, "root tmpfs on root.path");
    }
    return mfd;
}

int rootfs_enter(const struct profile *p, struct rootfs_fds *fds, struct rr_error *err)
{
    struct mount_attr priv = {.propagation = MS_PRIVATE};
    _cleanup_close_ int root = -1;

    /* Nothing mounted from here on may propagate to another namespace. */
    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &priv) < 0)
        return rr_fail(err, errno, "make mounts private");
    root = new_root(fds->mountpoint, err);
    if (root < 0)
        return -1;
    if (apply_mounts(root, p, fds, err) < 0 || rootfs_mount_checkout(root, p, fds, err) < 0 ||
        rootfs_mount_git_common(root, p, fds, err) < 0 || harden_paths(root, p, err) < 0 ||
        write_etc(root, p, err) < 0)
        return -1;
    return pivot(root, p->root_readonly, err);
}

/* ---- engine mode ---- */

/* Each mount's own propagation, on the mount now at its destination, once
 * the whole tree is private (profile.h mount_plan.propagation). */
static int apply_propagation(int root, const struct profile *p, struct rr_error *err)
{
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        struct mount_attr prop = {.propagation = m->propagation};
        _cleanup_close_ int at = -1;

        if (m->propagation == 0)
            continue;
        at = rr_open_in_root(root, m->destination, O_PATH | O_NOFOLLOW, true);
        if (at < 0)
            return rr_fail(err, errno, "mounts[%zu]: propagation of %s", i, m->destination);
        if (rr_mount_setattr(at, "", AT_EMPTY_PATH | (m->propagation_rec ? AT_RECURSIVE : 0),
                             &prop) < 0)
            return rr_fail(err, errno, "mounts[%zu]: propagation of %s", i, m->destination);
    }
    return 0;
}

/* The image (attached, read-only) under its private upper: the overlay,
 * made in the container's user namespace, attached on top of the image's
 * mount, which it hides. Returns the overlay. */
static int image_overlay(const struct rootfs_fds *fds, struct rr_error *err)
{
    _cleanup_close_ int ovl = overlay_mount_native(fds->root_mfd, fds->root_upper_fd,
                                                   fds->root_work_fd, err);

    if (ovl < 0)
        return rr_wrap(err, "root.path: the image under its private upper");
    if (rr_attach(ovl, fds->root_mfd, err) < 0)
        return rr_wrap(err, "root.path: the image's overlay");
    return rr_steal_fd(&ovl);
}

int rootfs_assemble_engine(const struct profile *p, struct rootfs_fds *fds, struct rr_error *err)
{
    struct mount_attr priv = {.propagation = MS_PRIVATE};
    int root;

    if (rr_mount_setattr(AT_FDCWD, "/", AT_RECURSIVE, &priv) < 0)
        return rr_fail(err, errno, "make mounts private");
    /* The image, opened by the caller, attached where no user of the
     * bundle can swap it; it stays the same mount the whole way. */
    if (rr_attach(fds->root_mfd, fds->mountpoint, err) < 0)
        return rr_wrap(err, "root.path");
    root = fds->root_upper_fd >= 0 ? image_overlay(fds, err)
                                   : fcntl(fds->root_mfd, F_DUPFD_CLOEXEC, 3);
    if (root < 0)
        return fds->root_upper_fd >= 0 ? -1 : rr_fail(err, errno, "root.path");
    if (apply_mounts(root, p, fds, err) < 0 || harden_paths(root, p, err) < 0) {
        close(root);
        return -1;
    }
    /* Trees the caller opened keep their propagation (docker's image
     * mounts are shared): nothing in the container's tree may propagate,
     * and pivot_root refuses a shared root. */
    if (rr_mount_setattr(root, "", AT_EMPTY_PATH | AT_RECURSIVE, &priv) < 0) {
        close(root);
        return rr_fail(err, errno, "make the container's mounts private");
    }
    if (apply_propagation(root, p, err) < 0) {
        close(root);
        return -1;
    }
    return root;
}

int rootfs_pivot_engine(const struct profile *p, int root, struct rr_error *err)
{
    struct mount_attr prop = {.propagation = p->eng.root_propagation};

    if (pivot(root, p->root_readonly, err) < 0)
        return -1;
    /* After the pivot: pivot_root refuses a shared root. */
    if (p->eng.root_propagation != 0 &&
        rr_mount_setattr(AT_FDCWD, "/", p->eng.root_propagation_rec ? AT_RECURSIVE : 0, &prop) < 0)
        return rr_fail(err, errno, "linux.rootfsPropagation");
    return 0;
}

/* Is dest below (or at) the destination of a mount planned before index i? */
static bool under_earlier_mount(const struct profile *p, size_t i)
{
    const char *d = p->mounts[i].destination;

    for (size_t j = 0; j < i; j++) {
        const char *m = p->mounts[j].destination;
        size_t n = strlen(m);
        while (n > 1 && m[n - 1] == '/')
            n--;
        if (strncmp(d, m, n) == 0 && (d[n] == '/' || d[n] == '\0'))
            return true;
    }
    return false;
}

/* The image (lower, -1: none) holds the destination already, resolved in
 * it as the container will resolve it. */
static bool image_has(int lower, const char *dest)
{
    int fd = lower < 0 ? -1 : rr_open_in_root(lower, dest, O_PATH | O_CLOEXEC, false);

    if (fd < 0)
        return false;
    close(fd);
    return true;
}

int rootfs_premake_engine(const struct profile *p, int root, int lower, const int *bind_fds,
                          struct rr_error *err)
{
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        struct stat st;
        int fd;

        if (under_earlier_mount(p, i) || image_has(lower, m->destination))
            continue;
        st.st_mode = S_IFDIR;
        if (m->kind == MOUNT_BIND && bind_fds[i] >= 0 && fstat(bind_fds[i], &st) < 0)
            return rr_fail(err, errno, "bind %s", m->source);
        fd = S_ISDIR(st.st_mode) ? rr_mkdir_p_in_root(root, m->destination, 0755, err)
                                 : rr_touch_in_root(root, m->destination, 0644, err);
        if (fd < 0)
            return rr_wrap(err, "mounts[%zu]: mount point %s in the image", i, m->destination);
        close(fd);
    }
    return 0;
}
