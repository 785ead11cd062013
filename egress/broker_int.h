/* Internal to egress/: the broker's shared state and its per-connection
 * worker. */
#ifndef REVRUN_EGRESS_BROKER_INT_H
#define REVRUN_EGRESS_BROKER_INT_H

#include <pthread.h>

#include "egress/egress.h"
#include "egress/tls.h"

/* Response heads are the upstream's, bounded by this; body bytes move in
 * pieces of this size. */
#define BROKER_IO_BUF (64 * 1024)

struct egress_broker {
    struct egress_upstream up;
    struct rr_strv allow;
    char *header;
    char *header_prefix;
    struct egress_secret secret;
    char *ca_file;
    SSL_CTX *ctx;
    unsigned idle_ms;
    unsigned max_conns;
    struct eg_limits lim;
    egress_log_fn log;
    void *log_arg;
    int stop_fd; /* set by serve */

    pthread_mutex_t lock; /* guards the fields below */
    pthread_cond_t drained;
    unsigned active;
    SSL_SESSION *session; /* the last resumable upstream session */
    pthread_mutex_t log_lock;
};

/* Serve one agent connection to the end and close client_fd. */
void broker_conn_serve(struct egress_broker *b, int client_fd);

/* Report one request through b->log (serialised). */
struct conn;
void broker_log(struct egress_broker *b, const struct conn *c);

/* The session to resume (a new reference, or NULL), and keeping a new one. */
SSL_SESSION *broker_session_get(struct egress_broker *b);
void broker_session_keep(struct egress_broker *b, SSL *ssl);

#endif
