/* Is a tree the host's own? An engine's root.path is shown through the
 * container's id mapping only when it is not a host system directory, nor
 * holds one, nor lies in one that keeps the host's secrets. Judged by what
 * the directory is (st_dev and st_ino), whichever path or bind mount names
 * it: a bind alias of "/" is "/", a path string would not say so. */
#ifndef REVRUN_HOST_TREES_H
#define REVRUN_HOST_TREES_H

#include <stdbool.h>

#include "common/error.h"

/* The host's system directories, as revrun's mount namespace shows them
 * (a missing one is skipped). */
extern const char *const host_system_dirs[];
/* Those whose whole subtree is the host's (configuration, boot files,
 * root's home, the kubelet's keys): a tree inside one is the host's too. */
extern const char *const host_private_dirs[];

enum host_tree_kind {
    HOST_TREE_NOT,    /* none of the host's: may be idmapped */
    HOST_TREE_IS,     /* the same directory as host dir `which` */
    HOST_TREE_HOLDS,  /* an ancestor of it (the host's "/" holds them all) */
    HOST_TREE_INSIDE, /* inside host_private_dirs' `which` */
};

struct host_tree_verdict {
    enum host_tree_kind kind;
    const char *which; /* the host directory, one of the lists above */
};

/* Judge the directory tree_fd (any open fd of it). -1 only when the host's
 * own directories cannot be read; a tree whose place cannot be told is
 * judged inside (fail closed). */
int host_tree_judge(int tree_fd, struct host_tree_verdict *v, struct rr_error *err);

/* "is the host's /etc", "holds the host's /etc", "lies in the host's /etc" */
const char *host_tree_says(const struct host_tree_verdict *v);

#endif
