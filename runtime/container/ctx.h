/* What every library call below the command line needs to know about the
 * caller: where state lives and whether revrun runs unprivileged. The CLI
 * fills it once from the global options; nothing below it parses argv. */
#ifndef REVRUN_CTX_H
#define REVRUN_CTX_H

#include <stdbool.h>

struct rr_ctx {
    const char *root; /* state root: --root, or the default for this user */
    bool rootless;    /* not running as root in the initial user namespace */
    bool systemd_cgroup; /* --systemd-cgroup: cgroupsPath is slice:prefix:name */
};

#endif
