/* DNS inside the sandbox: a resolver on the container's loopback
 * (127.0.0.1:53, UDP and TCP) that answers every query NXDOMAIN at once, so
 * a lookup fails fast and for good (glibc and c-ares report "not found",
 * not "temporary failure", and agents do not retry). Nothing is forwarded:
 * no packet leaves the network namespace. rootfs.c writes the matching
 * /etc/resolv.conf (nameserver 127.0.0.1, attempts:1 timeout:1). */
#ifndef REVRUN_EGRESS_DNS_H
#define REVRUN_EGRESS_DNS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define DNS_PORT 53
#define DNS_MSG_MAX 512 /* what is read of a query; longer ones are malformed here */

/* The reply to query q[0..n) in out (at least n + 12 bytes... DNS_MSG_MAX
 * is enough): the header with QR set, the question echoed, RCODE NXDOMAIN
 * (FORMERR for a malformed query, NOTIMP for an opcode other than QUERY).
 * Returns its length, or 0 when nothing should be sent (too short to hold
 * an ID, or itself a response). Pure: the unit tests call it. */
size_t dns_nxdomain_reply(const uint8_t *q, size_t n, uint8_t *out, size_t cap);

/* Both sockets bound on 127.0.0.1:53 (pid 1 binds them while it may). */
int dns_listen(int *udp_fd, int *tcp_fd, struct rr_error *err);

/* Serve until a fatal error; returns only then. */
int dns_serve(int udp_fd, int tcp_fd, struct rr_error *err);

#endif
