/* Starting a container's egress broker (monitor) and relay (pid 1). */
#ifndef REVRUN_EGRESS_WIRE_H
#define REVRUN_EGRESS_WIRE_H

#include <linux/filter.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/confine/profile/profile.h"

#define EGRESS_SOCKET "egress.sock" /* in the container's state directory */
#define EGRESS_LOG "egress.log"     /* method, path, status per request */

/* Monitor: with p->egress, bind STATE/egress.sock and fork the broker,
 * which serves under floor (revrun's seccomp floor for its helpers), in the
 * container's cgroup cg (its memory, CPU and threads count against the
 * container's limits). *stop_w is the pipe end whose closing stops it.
 * No-op without egress. */
struct cgroup_plan;
int egress_wire_broker(const struct profile *p, const struct sock_fprog *floor,
                       const struct cgroup_plan *cg, const char *state_path, pid_t *pid,
                       int *stop_w, struct rr_error *err);

/* Load OpenSSL for a broker that will speak TLS to its upstream (https),
 * as the broker would: a review asks before its agent runs. No-op
 * otherwise, or once loaded. */
int egress_wire_load_tls(const struct rr_config *cfg, struct rr_error *err);

/* pid 1, before giving up its identity: an O_PATH fd of the socket. */
int egress_wire_open_socket(const char *state_path, struct rr_error *err);

/* The relay's loop, in a confined child of pid 1: accept on listen_fd
 * (127.0.0.1:PORT), connect each client to the broker through sock_fd. */
int egress_wire_relay(int listen_fd, int sock_fd, struct rr_error *err);

#endif
