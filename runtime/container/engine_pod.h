/* A pod under revrun: the namespaces an engine container joins by path (a
 * kubelet's app container names its pause container's network, ipc and uts
 * namespaces, and its pid namespace with shareProcessNamespace) resolved by
 * identity, never by the path string: each namespace file's nsfs identity
 * (device, inode) against the namespaces of the live revrun containers of
 * the same state root (the files of their init's /proc/PID/ns, the pid checked by its
 * start time).
 *
 * - Every joined namespace owned by the host's user namespace (a netns
 *   `ip netns add` made, the host's own): not a pod; the container gets a
 *   user namespace and id block of its own, as before.
 * - Some owned by another user namespace: a pod's. That user namespace must
 *   be a live revrun container's of the state root, and every joined
 *   namespace one of its containers' (the host-owned ones too: containerd
 *   makes a pod's network namespace itself and its pause container joins
 *   it). The container joins that user namespace, with its id maps (the
 *   pod's block), so that its root may mount proc and mqueue for the pod's
 *   namespaces (and sysfs, unless the network namespace is the host's).
 * - Anything else (a namespace no revrun container of the pod has, two
 *   user namespaces) is refused, naming the path and why. */
#ifndef REVRUN_ENGINE_POD_H
#define REVRUN_ENGINE_POD_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle/config.h"
#include "bundle/state.h"
#include "common/error.h"

struct engine_pod {
    bool joined;               /* the namespaces are a revrun pod's */
    int userns_fd;             /* its user namespace (joined), or -1 */
    char owner[RR_ID_MAX + 1]; /* a container of the pod whose namespaces they are */
    bool net_host_owned;       /* the network namespace joined is owned by the host's
                                * user namespace (containerd's CNI netns): no sysfs */
    struct rr_id_mapping uid_map[8], gid_map[8]; /* the pod's, as the kernel has them */
    size_t n_uid_map, n_gid_map;
};

/* Namespace files opened for joining: fd[i] of type flag[i] (CLONE_NEW*)
 * named by path[i] (checked: nsfs, that type), -1 where none. */
struct engine_joins {
    size_t n;
    int fd[4];
    int flag[4];
    const char *path[4];
};

/* Decide from joins (opened) which case above applies; root_fd: the state
 * root, self: the container being created (not looked at). */
int engine_pod_resolve(int root_fd, const char *self, const struct engine_joins *joins,
                       struct engine_pod *pod, struct rr_error *err);

void engine_pod_close(struct engine_pod *pod);

#endif
