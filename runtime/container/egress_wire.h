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
struct broker_wire {
    pid_t pid;     /* -1: no broker */
    int stop;      /* closing it stops the broker */
    int activity;  /* its request records (p->record_execs), or -1 */
};
int egress_wire_broker(const struct profile *p, const struct sock_fprog *floor,
                       const struct cgroup_plan *cg, const char *state_path,
                       struct broker_wire *bw, struct rr_error *err);

/* The container is gone: stop the broker, wait for it (a bounded while),
 * and take its last request records into rec. */
struct activity;
void egress_wire_stop(struct broker_wire *bw, struct activity *rec);

/* egress_activity.c: the broker's request records, over a SOCK_SEQPACKET
 * pair the broker never waits on (a full one drops and counts). The
 * monitor takes what has come (without waiting) into rec; at the end of
 * the stream it closes *fd and sets it to -1. */
struct egress_log_entry;
struct eg_act_sender {
    int fd;
    uint64_t dropped;
};
void egress_activity_send(struct eg_act_sender *s, const struct egress_log_entry *e);
void egress_activity_close(struct eg_act_sender *s);
void egress_wire_take_activity(int *fd, struct activity *rec);

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
