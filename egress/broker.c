/* The broker: options, the accept loop with its connection cap, and the
 * orderly stop (no thread outlives egress_broker_serve). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "egress/broker_conn.h"
#include "egress/broker_int.h"
#include "egress/io.h"

static int copy_opts(struct egress_broker *b, const struct egress_broker_opts *o,
                     struct rr_error *err)
{
    const char *header = o->header ? o->header : EGRESS_DEFAULT_HEADER;

    b->header = strdup(header);
    b->header_prefix = strdup(o->header_prefix ? o->header_prefix : "");
    b->ca_file = o->ca_file ? strdup(o->ca_file) : NULL;
    if (b->header == NULL || b->header_prefix == NULL || (o->ca_file && b->ca_file == NULL))
        return rr_fail(err, ENOMEM, "broker options");
    if (o->allow != NULL)
        for (size_t i = 0; i < o->allow->n; i++)
            if (strv_push(&b->allow, o->allow->v[i]) < 0)
                return rr_fail(err, ENOMEM, "broker options");
    if (b->allow.n == 0 && strv_push(&b->allow, EGRESS_DEFAULT_ALLOW) < 0)
        return rr_fail(err, ENOMEM, "broker options");
    b->secret.p = malloc(o->secret_len + 1);
    if (b->secret.p == NULL)
        return rr_fail(err, ENOMEM, "broker options");
    memcpy(b->secret.p, o->secret, o->secret_len);
    b->secret.p[o->secret_len] = '\0';
    b->secret.n = o->secret_len;
    return 0;
}

/* The same rules as the config check, for callers that build options
 * directly (the CLI). */
static int check_opts(const struct egress_broker_opts *o, struct rr_error *err)
{
    if (egress_check_route(o->upstream, o->allow, o->header, o->header_prefix, err) < 0)
        return -1;
    if (o->secret == NULL || o->secret_len < EGRESS_SECRET_MIN)
        return rr_fail(err, EINVAL, "broker needs a credential");
    return 0;
}

int egress_broker_new(const struct egress_broker_opts *o, struct egress_broker **out,
                      struct rr_error *err)
{
    struct egress_broker *b;

    if (check_opts(o, err) < 0)
        return -1;
    b = calloc(1, sizeof(*b));
    if (b == NULL)
        return rr_fail(err, ENOMEM, "broker");
    pthread_mutex_init(&b->lock, NULL);
    pthread_mutex_init(&b->log_lock, NULL);
    pthread_cond_init(&b->drained, NULL);
    b->stop_fd = -1;
    b->idle_ms = o->idle_timeout_ms ? o->idle_timeout_ms : EGRESS_DEFAULT_IDLE_MS;
    b->max_conns = o->max_conns ? o->max_conns : EGRESS_DEFAULT_MAX_CONNS;
    b->log = o->log;
    b->log_arg = o->log_arg;
    if (o->limits != NULL)
        b->lim = *o->limits;
    else
        eg_limits_default(&b->lim);
    if (copy_opts(b, o, err) < 0 || egress_upstream_parse(o->upstream, &b->up, err) < 0) {
        egress_broker_free(b);
        return -1;
    }
    b->ctx = tls_client_ctx(b->ca_file, err);
    if (b->ctx == NULL) {
        egress_broker_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

void egress_broker_free(struct egress_broker *b)
{
    if (b == NULL)
        return;
    egress_secret_wipe(&b->secret);
    strv_free(&b->allow);
    free(b->header);
    free(b->header_prefix);
    free(b->ca_file);
    if (eg_ossl_loaded()) { /* not when the broker failed before its TLS */
        SSL_SESSION_free(b->session);
        SSL_CTX_free(b->ctx);
    }
    pthread_mutex_destroy(&b->lock);
    pthread_mutex_destroy(&b->log_lock);
    pthread_cond_destroy(&b->drained);
    free(b);
}

void broker_log(struct egress_broker *b, const struct conn *c)
{
    struct egress_log_entry e = {c->req.method, eg_target_path(c->req.target), c->status, c->note,
                                 c->bytes_up, c->bytes_down, c->started, 0, c->credential};
    struct timespec now;

    if (b->log == NULL)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    e.ms = (uint64_t)((now.tv_sec - c->t0.tv_sec) * 1000 + (now.tv_nsec - c->t0.tv_nsec) / 1000000);
    pthread_mutex_lock(&b->log_lock);
    b->log(b->log_arg, &e);
    pthread_mutex_unlock(&b->log_lock);
}

SSL_SESSION *broker_session_get(struct egress_broker *b)
{
    SSL_SESSION *s;

    pthread_mutex_lock(&b->lock);
    s = b->session;
    if (s != NULL)
        SSL_SESSION_up_ref(s);
    pthread_mutex_unlock(&b->lock);
    return s;
}

void broker_session_keep(struct egress_broker *b, SSL *ssl)
{
    SSL_SESSION *s = SSL_get1_session(ssl);

    if (s != NULL && !SSL_SESSION_is_resumable(s)) {
        SSL_SESSION_free(s);
        return;
    }
    pthread_mutex_lock(&b->lock);
    SSL_SESSION_free(b->session);
    b->session = s;
    pthread_mutex_unlock(&b->lock);
}

struct conn_start {
    struct egress_broker *b;
    int fd;
};

static void *conn_thread(void *arg)
{
    struct conn_start st = *(struct conn_start *)arg;
    sigset_t pipe;

    free(arg);
    /* OpenSSL writes to the upstream with write(): a SIGPIPE there must
     * become EPIPE for this connection, not the end of the broker. */
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, NULL);
    broker_conn_serve(st.b, st.fd);
    pthread_mutex_lock(&st.b->lock);
    if (--st.b->active == 0)
        pthread_cond_broadcast(&st.b->drained);
    pthread_mutex_unlock(&st.b->lock);
    return NULL;
}

static void refuse_busy(int fd)
{
    char buf[256];
    size_t n = eg_local_reply(503, "too many connections to the broker", buf, sizeof(buf));

    (void)!send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
}

static void start_conn(struct egress_broker *b, int fd)
{
    struct conn_start *st = malloc(sizeof(*st));
    pthread_attr_t attr;
    pthread_t t;
    bool full;

    pthread_mutex_lock(&b->lock);
    full = b->active >= b->max_conns;
    if (!full && st != NULL)
        b->active++;
    pthread_mutex_unlock(&b->lock);
    if (full || st == NULL) {
        free(st);
        refuse_busy(fd);
        return;
    }
    *st = (struct conn_start){b, fd};
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    if (pthread_create(&t, &attr, conn_thread, st) != 0) {
        free(st);
        pthread_mutex_lock(&b->lock);
        b->active--;
        pthread_mutex_unlock(&b->lock);
        refuse_busy(fd);
    }
    pthread_attr_destroy(&attr);
}

/* Connections see stop_fd in every wait, so they end soon after it fires;
 * serve returns once the last one has. */
static void drain(struct egress_broker *b)
{
    pthread_mutex_lock(&b->lock);
    while (b->active > 0)
        pthread_cond_wait(&b->drained, &b->lock);
    pthread_mutex_unlock(&b->lock);
}

int egress_broker_serve(struct egress_broker *b, int listen_fd, int stop_fd,
                        struct rr_error *err)
{
    struct pollfd p[2] = {{.fd = listen_fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};

    b->stop_fd = stop_fd;
    for (;;) {
        int fd;

        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            drain(b);
            return rr_fail(err, errno, "poll");
        }
        if (p[1].revents != 0)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0)
            start_conn(b, fd);
        else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
            usleep(10000); /* out of fds: let connections finish */
    }
    drain(b);
    return 0;
}

void egress_broker_opts_from_config(const struct rr_egress *eg, struct egress_broker_opts *o)
{
    *o = (struct egress_broker_opts){
        .upstream = eg->upstream,
        .allow = &eg->allow,
        .header = eg->header,
        .header_prefix = eg->header_prefix,
    };
}

int egress_broker_run(const struct egress_broker_opts *o, const char *cred_file,
                      const char *cred_env, const char *socket_path, int stop_fd,
                      struct rr_error *err)
{
    struct egress_secret s = {0};
    struct egress_broker_opts with_secret = *o;
    struct egress_broker *b = NULL;
    _cleanup_close_ int fd = -1;
    int r;

    if (egress_harden_process(err) < 0 || egress_secret_load(cred_file, cred_env, &s, err) < 0)
        return -1;
    with_secret.secret = s.p;
    with_secret.secret_len = s.n;
    r = egress_broker_new(&with_secret, &b, err);
    egress_secret_wipe(&s);
    if (r < 0)
        return -1;
    fd = egress_listen_unix(socket_path, err);
    r = fd < 0 ? -1 : egress_broker_serve(b, fd, stop_fd, err);
    if (fd >= 0)
        unlink(socket_path);
    egress_broker_free(b);
    return r;
}
