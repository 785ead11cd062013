/* An engine container's namespaces joined by path (network, ipc, uts, pid):
 * opened once, before anything is decided (runc's checks: a namespace file
 * of the type the config names), resolved to the host's or a pod's
 * (engine_pod.h), entered by create for the clone and left after it. In a
 * pod the child joins the pod's user namespace itself and makes its own
 * namespaces inside it (engine_ns_child_pod), and a pid namespace of its
 * own is made by a helper in that user namespace: a namespace belongs to
 * the user namespace of the process that makes it, and create stays in the
 * host's. */
#ifndef REVRUN_ENGINE_NS_H
#define REVRUN_ENGINE_NS_H

#include <stdbool.h>

#include "bundle/config.h"
#include "common/error.h"
#include "runtime/container/engine_pod.h"

struct engine_ns {
    struct engine_joins joins; /* the config's paths, opened */
    int back_fd[4];            /* ours, by joins index, to come back to */
    struct engine_pod pod;
};

void engine_ns_init(struct engine_ns *ns);

/* Open the config's namespace paths and decide whose they are (root_fd:
 * the state root; self: the container being created). */
int engine_ns_open(struct engine_ns *ns, const struct rr_config *cfg, int root_fd, const char *self,
                   struct rr_error *err);

/* Sysctls the host side writes in a joined namespace (kvs "key=value")
 * are refused when that namespace is the host's own. */
int engine_ns_check_sysctls(const struct engine_ns *ns, const struct rr_strv *kvs,
                            struct rr_error *err);

/* Join them for the next clone; leave them again. */
int engine_ns_enter(struct engine_ns *ns, struct rr_error *err);
int engine_ns_leave(struct engine_ns *ns, struct rr_error *err);

/* In the cloned child of a pod's container: join the pod's user namespace,
 * then make clone_flags' namespaces in it (a new pid namespace is its
 * children's: the caller forks the container's process then). */
int engine_ns_child_pod(const struct engine_ns *ns, unsigned clone_flags, struct rr_error *err);

void engine_ns_close(struct engine_ns *ns);

#endif
