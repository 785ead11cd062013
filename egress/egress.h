/* Egress: the one way out of the sandbox.
 *
 *   agent ──HTTP──► relay (127.0.0.1:PORT in the container's network
 *                   namespace) ──bytes──► broker's Unix socket (host)
 *                   ──HTTPS, credential injected──► the one upstream
 *
 * The broker holds the credential and judges every request (egress/http.h
 * has the rules); the relay is a byte pump with no policy, so that nothing
 * inside the sandbox can widen what the broker allows. THREAT_MODEL.md
 * "Egress" lists what is guaranteed and the test that pins each property.
 *
 * How the runtime starts both for a container with revrun.egress.mode ==
 * broker (create):
 *
 *   1. egress_config_validate(&cfg->revrun.egress, cfg->revrun.network, err)
 *      (revrun check calls it too).
 *   2. Broker: fork a host-side child that is not in the container's
 *      namespaces; in it fill opts with egress_broker_opts_from_config(eg,
 *      &o), set o.log, and call egress_broker_run(&o, eg->credential_file,
 *      eg->credential_env, SOCK, stop_fd, err) with SOCK a path in the
 *      container's state directory (mode 0700). It reads the credential,
 *      binds SOCK (0600: chown it to the relay's uid when that differs), and
 *      serves until stop_fd is readable or SIGTERM ends the process. The
 *      credential is read in this child only: the parent that will exec the
 *      agent never holds it.
 *   3. Relay: fork a child that joins the container's network namespace
 *      (setns on the init's /proc/PID/ns/net; rootless, join its user
 *      namespace first, since joining a network namespace needs
 *      CAP_SYS_ADMIN over it). It keeps the host mount namespace, so SOCK
 *      need not be bound into the container. Bring "lo" up if the runtime
 *      has not (a new network namespace starts with it down), drop to the
 *      agent's credentials and confinement (no capabilities, no_new_privs,
 *      the seccomp profile: the relay needs socket, bind, listen, accept4,
 *      connect, poll, recv/send, shutdown, close), then call
 *      egress_relay_run(port, SOCK, stop_fd, err). If the relay must live in
 *      the container's mount namespace instead, bind SOCK into it and pass
 *      the inside path.
 *   4. Set process.env <base_url_env>=egress_base_url(port) (and a dummy key
 *      if the agent's SDK insists on one: the broker strips it).
 *   5. At destroy: make stop_fd readable (or SIGTERM both children), reap
 *      them, unlink SOCK.
 *
 * Both loops return only on stop_fd or a fatal error; neither prints: the
 * broker reports each request to log_fn. */
#ifndef REVRUN_EGRESS_H
#define REVRUN_EGRESS_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "bundle/config.h"
#include "common/error.h"
#include "egress/http.h"

#define EGRESS_DEFAULT_ALLOW "/v1/"
#define EGRESS_DEFAULT_HEADER "x-api-key"
#define EGRESS_DEFAULT_PORT 8080
#define EGRESS_DEFAULT_IDLE_MS (600u * 1000u) /* a model can think for minutes */
#define EGRESS_DEFAULT_MAX_CONNS 32u
#define EGRESS_SECRET_MIN 8     /* shorter keys would make the echo guard misfire */
#define EGRESS_SECRET_MAX 4096

/* ---- configuration ---------------------------------------------------- */

/* Check revrun.egress: for mode broker, an https upstream, exactly one
 * credential source, a token header name, a header prefix and allow
 * prefixes that are plain (printable, start with "/", no dot segment), a
 * port, a variable name; and a network that is "none" (with "host" the
 * agent would not need the broker, so the pair is refused as a mistake). */
int egress_config_validate(const struct rr_egress *eg, enum rr_network net, struct rr_error *err);

/* One baseUrlEnv entry: NAME (set to the relay's URL) or NAME=/path (the
 * URL with that path after it, for SDKs that want e.g. ".../v1"). */
int egress_check_base_url_var(const char *spec, struct rr_error *err);

/* The part of that check that a broker's own options need: the upstream
 * URL, the allow prefixes, the header name and prefix (NULL: defaults). */
int egress_check_route(const char *upstream, const struct rr_strv *allow, const char *header,
                       const char *header_prefix, struct rr_error *err);

/* The upstream URL, split. Only https://host[:port][/]; no userinfo, path,
 * query or fragment. IPv6 literals in brackets. */
struct egress_upstream {
    char host[256];        /* for DNS, SNI and certificate name checks */
    char port[6];          /* "443" by default */
    char host_header[272]; /* Host: as sent upstream */
};
int egress_upstream_parse(const char *url, struct egress_upstream *out, struct rr_error *err);

/* "http://127.0.0.1:PORT" for the agent's base-URL variable. */
void egress_base_url(uint16_t port, char *out, size_t len);

/* ---- the credential --------------------------------------------------- */

struct egress_secret {
    char *p;
    size_t n;
};

/* Read the credential from file (one line; a trailing newline is dropped) or
 * from the environment variable env (exactly one of them non-NULL). It must
 * be EGRESS_SECRET_MIN..MAX visible ASCII bytes: anything else could split
 * the header it is injected into. After reading env, the variable's value
 * is overwritten in place and unset, so it does not linger in
 * /proc/self/environ. */
int egress_secret_load(const char *file, const char *env, struct egress_secret *s,
                       struct rr_error *err);

/* Zero and free. */
void egress_secret_wipe(struct egress_secret *s);

/* Process hardening for a process that holds the credential: not dumpable
 * (no core file; /proc/PID/mem, environ and ptrace refused to others of
 * the same uid), core size 0. */
int egress_harden_process(struct rr_error *err);

/* ---- the broker ------------------------------------------------------- */

/* One request, for the log: method, path (no query) and status, all as
 * received. method and path are the agent's bytes: escape them before a
 * person or a log sees them (log_msg does). note is the broker's own text
 * (why it refused or aborted), or NULL. Then, for the activity record: the
 * bytes each way (as read from and sent to the agent), when it came and how
 * long it took, and whether the credential went upstream with it. */
struct egress_log_entry {
    struct eg_slice method;
    struct eg_slice path;
    int status;
    const char *note;
    uint64_t bytes_up, bytes_down;
    struct timespec started; /* CLOCK_REALTIME */
    uint64_t ms;
    bool credential;
};
typedef void (*egress_log_fn)(void *arg, const struct egress_log_entry *e);

struct egress_broker_opts {
    const char *upstream;        /* https://host[:port] */
    const struct rr_strv *allow; /* path prefixes; NULL or empty: "/v1/" */
    const char *header;          /* NULL: "x-api-key" */
    const char *header_prefix;   /* NULL: "" */
    const char *secret;          /* copied by egress_broker_new */
    size_t secret_len;
    const char *ca_file;         /* NULL: the system trust store */
    unsigned idle_timeout_ms;    /* 0: EGRESS_DEFAULT_IDLE_MS */
    unsigned max_conns;          /* 0: EGRESS_DEFAULT_MAX_CONNS */
    const struct eg_limits *limits; /* NULL: eg_limits_default */
    egress_log_fn log;           /* may be NULL */
    void *log_arg;
};

struct egress_broker;

int egress_broker_new(const struct egress_broker_opts *o, struct egress_broker **out,
                      struct rr_error *err);

/* Accept on listen_fd (a listening Unix socket) until stop_fd (-1: none) is
 * readable; then stop accepting, end the connections in flight and return
 * 0. Each connection is served by its own thread, at most max_conns at
 * once (beyond that the client gets 503). SIGPIPE is blocked in those
 * threads; socket writes use MSG_NOSIGNAL. */
int egress_broker_serve(struct egress_broker *b, int listen_fd, int stop_fd,
                        struct rr_error *err);

/* Wipes the broker's copy of the secret. */
void egress_broker_free(struct egress_broker *b);

/* Options from revrun.egress (they point into eg, which must outlive
 * them); the caller adds log, ca_file, timeouts. */
void egress_broker_opts_from_config(const struct rr_egress *eg, struct egress_broker_opts *o);

/* The whole host side: harden the process, load the credential from
 * cred_file or cred_env (o->secret is ignored), listen on socket_path,
 * serve until stop_fd; the socket is removed on the way out. */
int egress_broker_run(const struct egress_broker_opts *o, const char *cred_file,
                      const char *cred_env, const char *socket_path, int stop_fd,
                      struct rr_error *err);

/* ---- the relay -------------------------------------------------------- */

/* Returns a new connected fd to the broker, or -1 with *err. */
typedef int (*egress_connect_fn)(void *arg, struct rr_error *err);

/* egress_connect_fn for a Unix socket path (arg is the const char * path). */
int egress_connect_unix(void *path, struct rr_error *err);

struct egress_relay_opts {
    unsigned max_conns;       /* 0: 64 */
    unsigned idle_timeout_ms; /* 0: one hour; the broker's own is the real bound */
};

/* Accept on listen_fd (TCP, from egress_listen_loopback) until stop_fd (-1:
 * none) is readable; for each client, connect_broker(arg) and pump bytes
 * both ways, half-closes included, in one thread with poll. No parsing, no
 * policy: everything is judged by the broker. Returns 0 on stop. */
int egress_relay_serve(int listen_fd, int stop_fd, egress_connect_fn connect_broker, void *arg,
                       const struct egress_relay_opts *o, struct rr_error *err);

/* listen on 127.0.0.1:port, connect to socket_path per client, serve. */
int egress_relay_run(uint16_t port, const char *socket_path, int stop_fd, struct rr_error *err);

/* ---- sockets ---------------------------------------------------------- */

/* A listening Unix stream socket at path, mode 0600. A stale socket left by
 * a dead broker is replaced; a live one is an error (EADDRINUSE). */
int egress_listen_unix(const char *path, struct rr_error *err);

/* A listening TCP socket on 127.0.0.1:port (port 0: any; see
 * egress_local_port). */
int egress_listen_loopback(uint16_t port, struct rr_error *err);
int egress_local_port(int fd, uint16_t *port, struct rr_error *err);

#endif
