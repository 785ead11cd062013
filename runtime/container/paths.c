#include "runtime/container/paths.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int paths_default_root(char *buf, size_t len, struct rr_error *err)
{
    const char *xdg;

    if (geteuid() == 0) {
        snprintf(buf, len, "/run/revrun");
        return 0;
    }
    xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg == NULL || xdg[0] != '/')
        return rr_fail(err, 0,
                       "XDG_RUNTIME_DIR is not set to an absolute path: pass --root DIR "
                       "(a directory only you can write) or log in through a session that "
                       "sets it");
    if ((size_t)snprintf(buf, len, "%s/revrun", xdg) >= len)
        return rr_fail(err, ENAMETOOLONG, "XDG_RUNTIME_DIR");
    return 0;
}
