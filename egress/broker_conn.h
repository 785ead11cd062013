/* Internal to egress/: the state of one agent connection, shared by the
 * request half (broker_conn.c) and the response half (broker_stream.c). */
#ifndef REVRUN_EGRESS_BROKER_CONN_H
#define REVRUN_EGRESS_BROKER_CONN_H

#include "egress/broker_int.h"

struct conn {
    struct egress_broker *b;
    int client;
    struct tls_conn up;
    struct tls_waits uw; /* upstream waits also watch the agent hanging up */

    char *head; /* lim.max_head bytes: the request head and what followed */
    size_t head_len;
    struct eg_request req;
    const char *left_p; /* body bytes that came with the head, not yet taken */
    size_t left_n;
    uint64_t body_left; /* Content-Length bodies */
    struct eg_chunked chunked;

    char *io; /* BROKER_IO_BUF + secret length */
    size_t io_len;

    int status; /* what the log says; 0: nothing to log */
    const char *note;
    /* for the activity record */
    uint64_t bytes_up, bytes_down; /* read from, sent to the agent */
    struct timespec started, t0;   /* CLOCK_REALTIME, CLOCK_MONOTONIC */
    bool credential;               /* the head with the credential went upstream */
};

/* io_send_all to the agent, counted. */
int conn_send(struct conn *c, const void *buf, size_t n);

/* Read the upstream's response and stream it to the agent. */
void broker_relay_response(struct conn *c);

/* After a WebSocket handshake's 101 went to the agent: relay bytes both
 * ways until either side ends, c->io[0..held) being upstream bytes that
 * came with the head (egress/broker_tunnel.c). */
void broker_tunnel(struct conn *c, size_t held);

/* Send a complete local reply and record it for the log. */
void conn_reply(struct conn *c, int status, const char *reason);

#endif
