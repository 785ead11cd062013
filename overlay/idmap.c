/* The idmapped lower: the checkout's owner appears as the container user, so
 * the agent can change the checkout's files through the overlay without the
 * checkout ever being chowned. Needs root (CAP_SYS_ADMIN over the checkout's
 * filesystem); unprivileged runs map the caller's own uid instead, which
 * already owns the checkout. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "overlay/overlay.h"
#include "common/mountapi.h"

static int write_map(pid_t pid, const char *file, unsigned inside, unsigned outside,
                     struct rr_error *err)
{
    char path[64], line[64];
    _cleanup_close_ int fd = -1;
    int n;

    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
    n = snprintf(line, sizeof(line), "%u %u 1\n", inside, outside);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || rr_write_all(fd, line, (size_t)n) < 0)
        return rr_fail(err, errno, "write %s", path);
    return 0;
}

/* Held by a paused child just long enough to open it. */
static int make_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid, gid_t to_gid,
                       struct rr_error *err)
{
    int ready[2], hold[2];
    char path[64], c = 0;
    pid_t pid;
    int nsfd = -1;

    if (pipe2(ready, O_CLOEXEC) < 0)
        return rr_fail(err, errno, "pipe");
    if (pipe2(hold, O_CLOEXEC) < 0) {
        close(ready[0]);
        close(ready[1]);
        return rr_fail(err, errno, "pipe");
    }
    pid = fork();
    if (pid < 0) {
        rr_fail(err, errno, "fork");
        goto out;
    }
    if (pid == 0) {
        close(ready[0]);
        close(hold[1]);
        if (unshare(CLONE_NEWUSER) < 0)
            _exit(errno & 0xff);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        /* Wait until the parent has opened the namespace (EOF on hold). */
        while (read(hold[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(ready[1]);
    ready[1] = -1;
    if (read(ready[0], &c, 1) != 1) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        pid = -1;
        rr_fail(err, WIFEXITED(status) && WEXITSTATUS(status) > 1 ? WEXITSTATUS(status) : EPERM,
                "new user namespace (user namespaces are refused here: see `revrun check`)");
        goto reap;
    }
    if (write_map(pid, "uid_map", from_uid, to_uid, err) < 0 ||
        write_map(pid, "gid_map", from_gid, to_gid, err) < 0)
        goto reap;
    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
    nsfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0)
        rr_fail(err, errno, "open %s", path);
reap:
    close(hold[1]);
    hold[1] = -1;
    if (pid > 0) {
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
out:
    for (int i = 0; i < 2; i++) {
        if (ready[i] >= 0)
            close(ready[i]);
        if (hold[i] >= 0)
            close(hold[i]);
    }
    return nsfd;
}

/* A bundle asks for the same mapping several times (the native probe, the
 * lower, the probe's own namespace): each is one namespace made once per
 * process, and each caller gets its own fd for it. A forked child keeps
 * the cache, which is only ever read by the process that filled it. */
static struct {
    uid_t from_uid, to_uid;
    gid_t from_gid, to_gid;
    pid_t owner;
    int fd;
} cache[4];
static size_t cached;

int overlay_idmap_userns(uid_t from_uid, gid_t from_gid, uid_t to_uid, gid_t to_gid,
                         struct rr_error *err)
{
    pid_t self = getpid();
    int fd;

    for (size_t i = 0; i < cached; i++)
        if (cache[i].owner == self && cache[i].from_uid == from_uid &&
            cache[i].from_gid == from_gid && cache[i].to_uid == to_uid &&
            cache[i].to_gid == to_gid) {
            fd = fcntl(cache[i].fd, F_DUPFD_CLOEXEC, 3);
            return fd >= 0 ? fd : rr_fail(err, errno, "user namespace");
        }
    fd = make_userns(from_uid, from_gid, to_uid, to_gid, err);
    if (fd < 0 || cached == sizeof(cache) / sizeof(cache[0]))
        return fd;
    cache[cached].fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (cache[cached].fd >= 0) {
        cache[cached].from_uid = from_uid;
        cache[cached].from_gid = from_gid;
        cache[cached].to_uid = to_uid;
        cache[cached].to_gid = to_gid;
        cache[cached].owner = self;
        cached++;
    }
    return fd;
}

/* Read-only, nosuid, nodev, and idmapped when asked, on the tree fd. */
static int lower_attrs(int fd, const char *lower, bool idmap, uid_t from_uid, gid_t from_gid,
                       uid_t to_uid, gid_t to_gid, struct rr_error *err)
{
    struct mount_attr ma = {
        .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
    };
    _cleanup_close_ int nsfd = -1;

    if (idmap) {
        nsfd = overlay_idmap_userns(from_uid, from_gid, to_uid, to_gid, err);
        if (nsfd < 0)
            return rr_wrap(err, "lower %s", lower);
        ma.attr_set |= MOUNT_ATTR_IDMAP;
        ma.userns_fd = (uint64_t)nsfd;
    }
    if (rr_mount_setattr(fd, "", AT_EMPTY_PATH, &ma) < 0)
        return rr_fail(err, errno, "lower %s: mount_setattr%s", lower,
                       idmap ? " (idmapped mount; the checkout's filesystem must support "
                               "idmapped mounts)" : "");
    return 0;
}

int overlay_lower_open(const char *lower, bool idmap, uid_t from_uid, gid_t from_gid,
                       uid_t to_uid, gid_t to_gid, struct rr_error *err)
{
    int fd;

    /* Not recursive: mounts below the checkout are not part of it. */
    fd = rr_open_tree(AT_FDCWD, lower, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "lower %s: open_tree", lower);
    if (idmap) {
        struct stat st;
        /* the owner was judged on the path; the tree opened must be it */
        int e = fstat(fd, &st) < 0 ? errno
                : st.st_uid != from_uid || st.st_gid != from_gid ? EPERM : 0;
        if (e != 0) {
            close(fd);
            return rr_fail(err, e, "lower %s: its owner changed since it "
                                                    "was judged (uid %u gid %u)", lower,
                           (unsigned)from_uid, (unsigned)from_gid);
        }
    }
    if (lower_attrs(fd, lower, idmap, from_uid, from_gid, to_uid, to_gid, err) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int overlay_lower_open_same(const char *lower, dev_t dev, ino_t ino, bool idmap, uid_t from_uid,
                            gid_t from_gid, uid_t to_uid, gid_t to_gid, struct rr_error *err)
{
    struct stat st;
    int fd = rr_open_tree(AT_FDCWD, lower, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "lower %s: open_tree", lower);
    if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
        close(fd);
        return rr_fail(err, ESTALE, "lower %s: not the directory judged (it was replaced)",
                       lower);
    }
    if (lower_attrs(fd, lower, idmap, from_uid, from_gid, to_uid, to_gid, err) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}
