#include "runtime/container/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

int paths_default_root(char *buf, size_t len, bool *private_dir, struct rr_error *err)
{
    const char *xdg;

    *private_dir = false;
    if (geteuid() == 0) {
        snprintf(buf, len, "/run/revrun");
        return 0;
    }
    xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg == NULL || xdg[0] != '/') {
        *private_dir = true;
        snprintf(buf, len, "/tmp/revrun-%u", (unsigned)geteuid());
        return 0;
    }
    if ((size_t)snprintf(buf, len, "%s/revrun", xdg) >= len)
        return rr_fail(err, ENAMETOOLONG, "XDG_RUNTIME_DIR");
    return 0;
}

int paths_private_dir(const char *path, bool create, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    struct stat st;

    if (create && mkdir(path, 0700) < 0 && errno != EEXIST)
        return rr_fail(err, errno, "state root %s", path);
    /* O_NOFOLLOW: a symlink planted at PATH fails here, never followed */
    fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return rr_fail(err, ENOENT, "state root %s", path);
    if (fd < 0 || fstat(fd, &st) < 0)
        return rr_fail(err, errno == ELOOP || errno == ENOTDIR ? EPERM : errno,
                       "state root %s (without XDG_RUNTIME_DIR): not a directory of this user's "
                       "own: remove it, or pass --root DIR",
                       path);
    if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
        return rr_fail(err, EPERM,
                       "state root %s (without XDG_RUNTIME_DIR) must belong to uid %u with mode "
                       "0700 (it is uid %u, mode %04o): remove it, or pass --root DIR",
                       path, (unsigned)geteuid(), (unsigned)st.st_uid,
                       (unsigned)(st.st_mode & 07777));
    return 0;
}
