#include "runtime/container/activity_keep.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/container/activity.h"

/* A record never grows past ACT_MAX_BYTES (its last line included). */
#define KEEP_MAX (ACT_MAX_BYTES + ACT_MAX_RECORD_BYTES)
/* ID.jsonl, then ID.1.jsonl ... ID.99.jsonl for ids an engine reused */
#define KEEP_TRIES 100

int activity_keep_open(const char *root, struct rr_error *err)
{
    struct stat st;
    int fd;

    if (mkdir(root, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "the policy's activityRoot %s", root);
    fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "the policy's activityRoot %s", root);
    if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022) != 0) {
        close(fd);
        return rr_fail(err, EPERM, "the policy's activityRoot %s must be root's and writable "
                                   "by nobody else", root);
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
            snprintf(name, sizeof(name), "%s.%d.jsonl", id, i);
        /* link, not rename: it fails on a name already there */
        if (linkat(root_fd, tmp, root_fd, name, 0) == 0) {
            unlinkat(root_fd, tmp, 0);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    rr_fail(err, errno, "activityRoot: keep %s.jsonl", id);
    unlinkat(root_fd, tmp, 0);
    return -1;
}
