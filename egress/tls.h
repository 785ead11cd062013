/* Internal to egress/: the broker's TLS client. Certificates are always
 * verified, against the system trust store or a CA file, and the name
 * checked is the upstream's host (SSL_set1_host, or the IP address for a
 * literal). */
#ifndef REVRUN_EGRESS_TLS_H
#define REVRUN_EGRESS_TLS_H

#include "egress/ossl.h"

#include "common/error.h"
#include "egress/egress.h"

SSL_CTX *tls_client_ctx(const char *ca_file, struct rr_error *err);

/* Where a TLS stream waits: the stop fd and the agent's socket (to notice
 * it hanging up), and the idle timeout. */
struct tls_waits {
    int stop_fd;
    int watch_fd;
    unsigned timeout_ms;
};

struct tls_conn {
    SSL *ssl;
    int fd;
};

/* Connect and handshake. On failure returns an io_wait code or IO_ERROR,
 * and *why says what failed (static text, e.g. the verification error). */
int tls_open(SSL_CTX *ctx, SSL_SESSION *resume, const struct egress_upstream *up,
             const struct tls_waits *w, struct tls_conn *c, const char **why);

/* > 0 bytes read, 0 at the end of the stream, or an io_wait code. */
int tls_read(struct tls_conn *c, char *buf, size_t cap, const struct tls_waits *w);

/* One read that does not wait, for a loop that polls several fds: > 0
 * bytes, 0 at the end of the stream, TLS_AGAIN with *want the poll events
 * to wait for (POLLIN, or POLLOUT when OpenSSL must write first), or
 * IO_ERROR. */
enum { TLS_AGAIN = -10 };
int tls_read_some(struct tls_conn *c, char *buf, size_t cap, short *want);

/* 0, or an io_wait code. */
int tls_write_all(struct tls_conn *c, const char *buf, size_t len, const struct tls_waits *w);

void tls_close(struct tls_conn *c);

#endif
