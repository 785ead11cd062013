#include "runtime/container/activity_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/container/activity.h"

/* A record never grows past ACT_MAX_BYTES (its last line included). */
#define KEEP_MAX (ACT_MAX_BYTES + ACT_MAX_RECORD_BYTES)
/* ID.jsonl, then ID@1.jsonl ... ID@99.jsonl for ids an engine reused ('@'
 * is in no container id, so no other id's first name is taken) */
#define KEEP_TRIES 100

/* A directory on the way that nobody but root can change: root's, and
 * writable by nobody else unless sticky (/tmp: others cannot move root's
 * entries there; one they made is not root's and is refused below). */
static bool safe_dir(int fd, bool last)
{
    struct stat st;

    if (fstat(fd, &st) < 0 || st.st_uid != 0 || !S_ISDIR(st.st_mode))
        return false;
    if (last)
        return (st.st_mode & 022) == 0;
    return (st.st_mode & 022) == 0 || (st.st_mode & S_ISVTX);
}

int activity_keep_open(const char *root, struct rr_error *err)
{
    char path[4096], *save = NULL, *part, *next;
    int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (snprintf(path, sizeof(path), "%s", root) >= (int)sizeof(path) || root[0] != '/')
        return rr_fail(err, EINVAL, "the policy's activityRoot %s", root);
    if (fd < 0)
        return rr_fail(err, errno, "open /");
    /* each component opened from the last, nothing followed, each judged */
    for (part = strtok_r(path, "/", &save); part != NULL; part = next) {
        int sub;
        next = strtok_r(NULL, "/", &save);
        if (next == NULL && mkdirat(fd, part, 0700) < 0 && errno != EEXIST) {
            rr_fail(err, errno, "the policy's activityRoot %s", root);
            close(fd);
            return -1;
        }
        sub = openat(fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        if (sub < 0)
            return rr_fail(err, errno, "the policy's activityRoot %s: %s", root, part);
        fd = sub;
        if (!safe_dir(fd, next == NULL)) {
            close(fd);
            return rr_fail(err, EPERM, "the policy's activityRoot %s must be root's and writable "
                                       "by nobody else, as every directory above it (%s)",
                           root, part);
        }
    }
    return fd;
}

static int copy_record(int from, int to, struct rr_error *err)
{
    char buf[64 << 10];
    off_t off = 0;

    while (off < (off_t)KEEP_MAX) {
        ssize_t n = pread(from, buf, sizeof(buf), off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read the record");
        if (n == 0)
            return 0;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(to, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return rr_fail(err, errno, "write the kept record");
            done += w;
        }
        off += n;
    }
    return 0;
}

int activity_keep(int root_fd, const char *id, int record_fd, struct rr_error *err)
{
    char tmp[300], name[300];
    _cleanup_close_ int out = -1;

    snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", id, (int)getpid());
    out = openat(root_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0)
        return rr_fail(err, errno, "activityRoot: %s", tmp);
    if (copy_record(record_fd, out, err) < 0 ||
        (fsync(out) < 0 && rr_fail(err, errno, "activityRoot: fsync %s", tmp) < 0)) {
        unlinkat(root_fd, tmp, 0);
        return -1;
    }
    for (int i = 0; i < KEEP_TRIES; i++) {
        if (i == 0)
            snprintf(name, sizeof(name), "%s.jsonl", id);
        else
            snprintf(name, sizeof(name), "%s@%d.jsonl", id, i);
        /* link, not rename: it fails on a name already there */
        if (linkat(root_fd, tmp, root_fd, name, 0) == 0) {
            unlinkat(root_fd, tmp, 0);
            (void)fsync(root_fd);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    rr_fail(err, errno, "activityRoot: keep %s.jsonl", id);
    unlinkat(root_fd, tmp, 0);
    return -1;
}
