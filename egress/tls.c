#include "egress/tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "egress/io.h"

SSL_CTX *tls_client_ctx(const char *ca_file, struct rr_error *err)
{
    SSL_CTX *ctx;
    int ok;

    if (eg_ossl_load(err) < 0)
        return NULL;
    if ((ctx = SSL_CTX_new(TLS_client_method())) == NULL) {
        rr_fail(err, 0, "SSL_CTX_new failed");
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    /* A server that closes without close_notify ends the stream like one
     * that sends it; the agent's client still sees the HTTP framing cut. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL);
    if (ca_file != NULL)
        ok = SSL_CTX_load_verify_locations(ctx, ca_file, NULL);
    else
        ok = SSL_CTX_set_default_verify_paths(ctx);
    if (ok != 1) {
        unsigned long e = ERR_get_error();
        SSL_CTX_free(ctx);
        rr_fail(err, 0, "load trust anchors %s: %s", ca_file ? ca_file : "(system)",
                ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "unknown error");
        return NULL;
    }
    return ctx;
}

static int connect_one(const struct addrinfo *ai, const struct tls_waits *w)
{
    _cleanup_close_ int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                                    ai->ai_protocol);
    int one = 1, soerr = 0;
    socklen_t len = sizeof(soerr);

    if (fd < 0)
        return -1;
    /* Heads and SSE events are small writes that must leave at once. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS)
            return -1;
        if (io_wait(fd, POLLOUT, w->stop_fd, w->watch_fd, w->timeout_ms) != IO_READY)
            return -1;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr != 0)
            return -1;
    }
    return rr_steal_fd(&fd);
}

static int tcp_connect(const struct egress_upstream *up, const struct tls_waits *w)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int fd = -1;

    if (getaddrinfo(up->host, up->port, &hints, &res) != 0)
        return -1;
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next)
        fd = connect_one(ai, w);
    freeaddrinfo(res);
    return fd;
}

/* Wait for what OpenSSL asked for; IO_ERROR for anything but a retry. */
static int tls_retry(struct tls_conn *c, int ret, const struct tls_waits *w)
{
    switch (SSL_get_error(c->ssl, ret)) {
    case SSL_ERROR_WANT_READ:
        return io_wait(c->fd, POLLIN, w->stop_fd, w->watch_fd, w->timeout_ms);
    case SSL_ERROR_WANT_WRITE:
        return io_wait(c->fd, POLLOUT, w->stop_fd, w->watch_fd, w->timeout_ms);
    default:
        return IO_ERROR;
    }
}

/* The name the certificate must carry: a DNS name, or an IP literal. */
static int set_peer_name(SSL *ssl, const char *host)
{
    unsigned char addr[16];

    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1)
        return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 ? 0 : -1;
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    if (SSL_set_tlsext_host_name(ssl, host) != 1 || SSL_set1_host(ssl, host) != 1)
        return -1;
    return 0;
}

static int handshake(struct tls_conn *c, const struct tls_waits *w, const char **why)
{
    for (;;) {
        int r = SSL_connect(c->ssl);
        long v;

        if (r == 1)
            break;
        r = tls_retry(c, r, w);
        if (r == IO_ERROR) {
            v = SSL_get_verify_result(c->ssl);
            *why = v != X509_V_OK ? X509_verify_cert_error_string(v) : "TLS handshake failed";
            return IO_ERROR;
        }
        if (r != IO_READY) {
            *why = "TLS handshake did not finish";
            return r;
        }
    }
    /* SSL_VERIFY_PEER already failed the handshake otherwise; checked again
     * because the whole point of the broker rests on it. */
    if (SSL_get_verify_result(c->ssl) != X509_V_OK || SSL_get0_peer_certificate(c->ssl) == NULL) {
        *why = "upstream certificate not verified";
        return IO_ERROR;
    }
    return 0;
}

int tls_open(SSL_CTX *ctx, SSL_SESSION *resume, const struct egress_upstream *up,
             const struct tls_waits *w, struct tls_conn *c, const char **why)
{
    int r;

    c->ssl = NULL;
    c->fd = tcp_connect(up, w);
    if (c->fd < 0) {
        *why = "cannot connect to upstream";
        return IO_ERROR;
    }
    c->ssl = SSL_new(ctx);
    if (c->ssl == NULL || SSL_set_fd(c->ssl, c->fd) != 1 || set_peer_name(c->ssl, up->host) < 0) {
        *why = "TLS setup failed";
        tls_close(c);
        return IO_ERROR;
    }
    if (resume != NULL)
        SSL_set_session(c->ssl, resume);
    r = handshake(c, w, why);
    if (r < 0)
        tls_close(c);
    ERR_clear_error();
    return r;
}

int tls_read(struct tls_conn *c, char *buf, size_t cap, const struct tls_waits *w)
{
    for (;;) {
        int n = SSL_read(c->ssl, buf, cap > 1 << 30 ? 1 << 30 : (int)cap);
        int r;

        if (n > 0)
            return n;
        if (SSL_get_error(c->ssl, n) == SSL_ERROR_ZERO_RETURN)
            return 0;
        r = tls_retry(c, n, w);
        if (r != IO_READY) {
            ERR_clear_error();
            return r;
        }
    }
}

int tls_read_some(struct tls_conn *c, char *buf, size_t cap, short *want)
{
    int n = SSL_read(c->ssl, buf, cap > 1 << 30 ? 1 << 30 : (int)cap);

    if (n > 0)
        return n;
    switch (SSL_get_error(c->ssl, n)) {
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    case SSL_ERROR_WANT_READ:
        *want = POLLIN;
        return TLS_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        *want = POLLOUT;
        return TLS_AGAIN;
    default:
        ERR_clear_error();
        return IO_ERROR;
    }
}

int tls_write_all(struct tls_conn *c, const char *buf, size_t len, const struct tls_waits *w)
{
    while (len > 0) {
        int n = SSL_write(c->ssl, buf, len > 1 << 30 ? 1 << 30 : (int)len);
        int r;

        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        r = tls_retry(c, n, w);
        if (r != IO_READY) {
            ERR_clear_error();
            return r;
        }
    }
    return 0;
}

void tls_close(struct tls_conn *c)
{
    if (c->ssl != NULL)
        SSL_free(c->ssl);
    if (c->fd >= 0)
        close(c->fd);
    c->ssl = NULL;
    c->fd = -1;
}
