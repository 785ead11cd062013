#include "runtime/cli/cli_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/cli/cli.h"

/* Deep enough for any path the kernel resolves (PATH_MAX / 2 components). */
#define MAX_DEPTH (PATH_MAX / 2)

/* Is the directory `inner` (open) `outer` itself or below it? Walks ".."
 * until the root, whose parent is itself; a step that cannot be opened
 * ends the walk (an unreadable parent holds neither). */
static bool within(int inner, const struct stat *outer)
{
    _cleanup_close_ int cur = fcntl(inner, F_DUPFD_CLOEXEC, 3);
    struct stat st, up;

    for (int depth = 0; cur >= 0 && depth < MAX_DEPTH; depth++) {
        if (fstat(cur, &st) < 0)
            return false;
        if (st.st_dev == outer->st_dev && st.st_ino == outer->st_ino)
            return true;
        int parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (parent < 0 || fstat(parent, &up) < 0) {
            if (parent >= 0)
                close(parent);
            return false;
        }
        close(cur);
        cur = parent;
        if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
            return false; /* the root: its parent is itself */
    }
    return false;
}

/* OUT, or the nearest parent of it that exists (OUT may be made later). */
static int open_existing(const char *path, bool *exists)
{
    char buf[PATH_MAX];
    int fd;

    *exists = true;
    if ((fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 || errno != ENOENT)
        return fd;
    *exists = false;
    if (strlen(path) >= sizeof(buf))
        return -1;
    strcpy(buf, path);
    for (;;) {
        char *slash = strrchr(buf, '/');
        if (slash == NULL)
            return open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
        *(slash == buf ? slash + 1 : slash) = '\0';
        if ((fd = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0 || errno != ENOENT)
            return fd;
    }
}

bool cli_paths_apart(const char *cmd, const char *lower, const char *flag, const char *out,
                     bool results)
{
    _cleanup_close_ int lfd = open(lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int ofd = -1;
    struct stat lst, ost;
    bool exists;

    if (lfd < 0 || fstat(lfd, &lst) < 0) {
        cli_usage_error(cmd, "--lower %s: %s", lower, strerror(errno));
        return false;
    }
    ofd = open_existing(out, &exists);
    if (ofd < 0 || fstat(ofd, &ost) < 0) {
        cli_usage_error(cmd, "%s %s: %s", flag, out, strerror(errno));
        return false;
    }
    if (within(ofd, &lst)) {
        cli_usage_error(cmd, "%s %s is inside --lower %s: the agent would read it", flag, out,
                        lower);
        return false;
    }
    if (exists && within(lfd, &ost)) {
        cli_usage_error(cmd, "--lower %s is inside %s %s", lower, flag, out);
        return false;
    }
    if (results && exists && faccessat(ofd, "result.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        cli_usage_error(cmd, "%s %s already holds a review's results", flag, out);
        return false;
    }
    return true;
}
