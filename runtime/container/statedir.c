#include "runtime/container/statedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

#define STATE_MAX (64 * 1024)

int statedir_root(const char *root, bool create, struct rr_error *err)
{
    struct stat st;
    int fd;

    if (create && mkdir(root, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "state root %s", root);
    fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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
