#include "runtime/container/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

#define STATE_MAX (64 * 1024)

/* The next component of *p (skipping slashes) into name; 0 at the end. */
static int next_component(const char **p, char *name, size_t len)
{
    size_t n;

    while (**p == '/')
        (*p)++;
    n = strcspn(*p, "/");
    if (n == 0)
        return 0;
    if (n >= len)
        return -1;
    memcpy(name, *p, n);
    name[n] = '\0';
    *p += n;
    return 1;
}

/* One step down from dirfd, making `name` (0700) when missing. O_NOFOLLOW: a
 * symlink on the way is refused (ELOOP/ENOTDIR), not followed, so nobody who
 * can write a parent steers the root somewhere else. */
static int step_down(int dirfd, const char *name, const char *root, struct rr_error *err)
{
    int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0 && errno == ENOENT) {
        if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST)
            return rr_fail(err, errno, "state root %s: create %s", root, name);
        fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
        return rr_fail(err, errno,
                       "state root %s: %s on the way is a symlink or not a directory (give a "
                       "path without symlinks)",
                       root, name);
    if (fd < 0)
        return rr_fail(err, errno, "state root %s: %s", root, name);
    return fd;
}

/* mkdir -p of a missing state root, as runc does for --root (containerd's
 * shim passes /run/containerd/runc/NAMESPACE, absent on a fresh node): each
 * missing component 0700 and the caller's, walked from "/" (or the working
 * directory) one component at a time without following a symlink. */
static int make_root(const char *root, struct rr_error *err)
{
    char name[NAME_MAX + 1];
    const char *p = root;
    int fd = open(root[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int r;

    if (fd < 0)
        return rr_fail(err, errno, "state root %s", root);
    while ((r = next_component(&p, name, sizeof(name))) > 0) {
        int next;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            close(fd);
            return rr_fail(err, EINVAL, "state root %s: \"..\" on the way", root);
        }
        next = step_down(fd, name, root, err);
        close(fd);
        if (next < 0)
            return -1;
        fd = next;
    }
    close(fd);
    return r < 0 ? rr_fail(err, ENAMETOOLONG, "state root %s", root) : 0;
}

int statedir_root(const char *root, bool create, struct rr_error *err)
{
    struct stat st;
    int fd;

    fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        if (make_root(root, err) < 0)
            return -1;
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    }
    if (fd < 0)
        return rr_fail(err, errno, "state root %s", root);
    if (fstat(fd, &st) < 0) {
        close(fd);
        return rr_fail(err, errno, "state root %s", root);
    }
    /* Another user's, or a shared writable directory, would let someone else
     * plant state that revrun then acts on (signals, removals). */
    if (st.st_uid != geteuid() || (st.st_mode & 022)) {
        close(fd);
        return rr_fail(err, EPERM,
                       "state root %s must belong to uid %u and not be writable by others",
                       root, (unsigned)geteuid());
    }
    return fd;
}

int statedir_create(int rootfd, const char *id, struct rr_error *err)
{
    int fd;

    if (mkdirat(rootfd, id, 0700) < 0) {
        if (errno == EEXIST)
            return rr_fail(err, EEXIST,
                           "container %s already exists (destroy it, or `revrun sweep` if a "
                           "crashed run left it)",
                           id);
        return rr_fail(err, errno, "create state for %s", id);
    }
    fd = openat(rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "open state for %s", id);
    int lock = openat(fd, LOCK_FILE, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0) {
        int e = errno;
        close(fd);
        return rr_fail(err, e, "create lock for %s", id);
    }
    close(lock);
    return fd;
}

int statedir_open(int rootfd, const char *id, struct rr_error *err)
{
    int fd = openat(rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0 && errno == ENOENT)
        return rr_fail(err, ENOENT, "container does not exist");
    if (fd < 0)
        return rr_fail(err, errno, "open state for %s", id);
    return fd;
}

int statedir_lock(int dirfd, struct rr_error *err)
{
    /* Created once, by statedir_create: a command racing a destroy must not
     * bring the lock file back into a directory being removed. */
    int fd = openat(dirfd, LOCK_FILE, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0 && errno == ENOENT)
        return rr_fail(err, ENOENT, "container does not exist (or is being removed)");
    if (fd < 0)
        return rr_fail(err, errno, "lock");
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            int e = errno;
            close(fd);
            return rr_fail(err, e, "lock");
        }
    }
    return fd;
}

int statedir_read_state(int dirfd, struct rr_state *s, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    size_t len;

    if (rr_read_file(dirfd, STATE_FILE, STATE_MAX, &text, &len, err) < 0)
        return -1;
    return state_from_json(text, len, s, err);
}

int statedir_write_state(int dirfd, const struct rr_state *s, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;

    if (state_to_json(s, &text, err) < 0)
        return -1;
    return rr_write_atomic(dirfd, STATE_FILE, text, strlen(text), 0600, err);
}

int statedir_read_exit(int dirfd, struct rr_exit *e, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    size_t len;

    if (faccessat(dirfd, EXIT_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
        return 0;
    if (rr_read_file(dirfd, EXIT_FILE, STATE_MAX, &text, &len, err) < 0)
        return -1;
    if (exit_from_json(text, len, e, err) < 0)
        return -1;
    return 1;
}

int statedir_write_exit(int dirfd, const struct rr_exit *e, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;

    if (exit_to_json(e, &text, err) < 0)
        return -1;
    return rr_write_atomic(dirfd, EXIT_FILE, text, strlen(text), 0600, err);
}

int statedir_remove(int rootfd, const char *id, struct rr_error *err)
{
    return rr_remove_tree(rootfd, id, err);
}
