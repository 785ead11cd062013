/* Rootless, the kernel lets a process drop its supplementary groups in a
 * user namespace only when setgroups(2) is allowed there, and an
 * unprivileged writer of gid_map must deny it (the agent would otherwise
 * keep the caller's groups: ssl-cert, docker, ... as unmapped ids that
 * still grant access on the host). newgidmap (uidmap), given a subordinate
 * gid range in /etc/subgid, writes the map with setgroups allowed: the
 * monitor's namespace maps 0 to the caller's gid and 1 to the first
 * subordinate gid (mapped, never used), and the monitor then drops every
 * supplementary group before anything of the container exists. */
#ifndef REVRUN_SUBGID_H
#define REVRUN_SUBGID_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/error.h"

#define SUBGID_HELPER "/usr/bin/newgidmap"
#define SUBGID_FILE "/etc/subgid"

struct subgid_helper {
    pid_t pid; /* the child waiting to run newgidmap, or -1 */
    int go;    /* its pipe: one byte to run, EOF to give up */
    gid_t first;
};

/* Before unshare(CLONE_NEWUSER): fork the child that will map the gids, if
 * newgidmap is there and the caller has a subordinate gid range. false:
 * none (why in *why). */
bool subgid_helper_start(struct subgid_helper *h, char *why, size_t len);

/* After the unshare, with uid_map written: newgidmap maps this process's
 * namespace (0 -> gid, 1 -> a subordinate gid) with setgroups allowed.
 * -1 when it failed (the gid map is then still unwritten). */
int subgid_helper_map(struct subgid_helper *h, gid_t gid, struct rr_error *err);

void subgid_helper_abandon(struct subgid_helper *h);

#endif
