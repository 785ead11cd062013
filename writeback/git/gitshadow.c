#include "writeback/git/gitshadow.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "writeback/base/rmtree.h"

const char *wb_shadow_parent(void)
{
    const char *tmp = getenv("TMPDIR");

    return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* One entry of the parent: 1 when it was a leftover and is gone. */
static int sweep_one(int parent, const char *name, time_t now, uint64_t older_than_s,
                     struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    struct stat st;
    uint64_t min_age = older_than_s > WB_SHADOW_MIN_AGE ? older_than_s : WB_SHADOW_MIN_AGE;

    if (strncmp(name, WB_SHADOW_PREFIX, strlen(WB_SHADOW_PREFIX)) != 0)
        return 0;
    fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() ||
        now - st.st_mtime < (time_t)min_age)
        return 0;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0)
        return 0; /* a live vet's */
    if (wb_rmtree_at(parent, name, WB_SHADOW_DEPTH, err) < 0)
        return rr_wrap(err, "removing %s", name);
    return 1;
}

int wb_shadow_sweep(uint64_t older_than_s, size_t *removed, struct rr_error *err)
{
    const char *where = wb_shadow_parent();
    int fd = open(where, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    time_t now = time(NULL);
    struct dirent *de;
    DIR *d;
    int r = 0;

    *removed = 0;
    if (fd < 0)
        return errno == ENOENT ? 0 : rr_fail(err, errno, "open %s", where);
    if ((d = fdopendir(fd)) == NULL) {
        close(fd);
        return rr_fail(err, errno, "read %s", where);
    }
    while (r >= 0 && (de = readdir(d)) != NULL)
        if ((r = sweep_one(dirfd(d), de->d_name, now, older_than_s, err)) > 0)
            (*removed)++;
    closedir(d);
    return r < 0 ? rr_wrap(err, "git shadows in %s", where) : 0;
}
