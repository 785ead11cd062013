/* egress_http: the agent's side of the egress tests, as a static binary so
 * it runs inside a bare network namespace today and inside a revrun
 * container later.
 *
 *   egress_http [-a ADDR] [-p PORT] [-u UNIX_PATH] [-t] [-n BYTES] [-w MS] [-c]
 *
 * Sends the raw request read from stdin (byte for byte: the tests send
 * malformed ones on purpose), then copies the response to stdout until the
 * peer closes. -t prefixes each response line with the milliseconds since
 * the request was sent, at the moment the line arrived (to show streaming).
 * -n closes the connection abruptly after BYTES response bytes (a client
 * that goes away mid-stream). -w is the overall time limit (default 10000).
 * -c only connects: exit 0 if a connection is made, 3 if not.
 * Exit: 0 done, 2 usage, 3 cannot connect, 4 timeout, 5 I/O error. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct opts {
    const char *addr, *unix_path;
    int port, timestamps, connect_only;
    long close_after, wait_ms;
};

static long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int dial(const struct opts *o)
{
    int fd;

    if (o->unix_path != NULL) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", o->unix_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            return fd;
    } else {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)o->port)};
        if (inet_pton(AF_INET, o->addr, &sa.sin_addr) != 1)
            return -1;
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
            return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

static int send_stdin(int fd)
{
    char buf[65536];
    ssize_t n;

    while ((n = read(0, buf, sizeof(buf))) > 0)
        for (ssize_t off = 0; off < n;) {
            ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL);
            if (w < 0)
                return -1;
            off += w;
        }
    return n < 0 ? -1 : 0;
}

/* -t output: whole lines, each stamped when its newline arrived. */
static void emit(const char *p, size_t n, int stamp, long t0)
{
    static char line[65536];
    static size_t len;

    if (!stamp) {
        fwrite(p, 1, n, stdout);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n' || len == sizeof(line) - 1) {
            printf("%ld %.*s\n", now_ms() - t0, (int)len, line);
            len = 0;
        } else if (p[i] != '\r') {
            line[len++] = p[i];
        }
    }
}

static int receive(int fd, const struct opts *o, long t0)
{
    char buf[65536];
    long got = 0;

    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long left = o->wait_ms - (now_ms() - t0);
        ssize_t n;

        if (left <= 0 || poll(&p, 1, (int)left) == 0)
            return 4;
        n = recv(fd, buf, sizeof(buf), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == ECONNRESET ? 0 : 5;
        if (n == 0)
            return 0;
        if (o->close_after > 0 && got + n >= o->close_after) {
            emit(buf, (size_t)(o->close_after - got), o->timestamps, t0);
            return 0; /* main closes with a reset: the agent vanished */
        }
        got += n;
        emit(buf, (size_t)n, o->timestamps, t0);
    }
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    int c;

    *o = (struct opts){.addr = "127.0.0.1", .port = 8080, .wait_ms = 10000};
    while ((c = getopt(argc, argv, "a:p:u:tn:w:c")) != -1) {
        switch (c) {
        case 'a': o->addr = optarg; break;
        case 'p': o->port = atoi(optarg); break;
        case 'u': o->unix_path = optarg; break;
        case 't': o->timestamps = 1; break;
        case 'n': o->close_after = atol(optarg); break;
        case 'w': o->wait_ms = atol(optarg); break;
        case 'c': o->connect_only = 1; break;
        default: return -1;
        }
    }
    return optind == argc ? 0 : -1;
}

int main(int argc, char **argv)
{
    struct opts o;
    struct linger abrupt = {1, 0};
    int fd, r;
    long t0;

    if (parse_opts(argc, argv, &o) < 0) {
        fprintf(stderr, "usage: egress_http [-a ADDR] [-p PORT] [-u PATH] [-t] [-n BYTES] "
                        "[-w MS] [-c] < request\n");
        return 2;
    }
    fd = dial(&o);
    if (fd < 0)
        return 3;
    if (o.connect_only)
        return 0;
    if (send_stdin(fd) < 0)
        return 5;
    t0 = now_ms();
    r = receive(fd, &o, t0);
    fflush(stdout);
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &abrupt, sizeof(abrupt));
    close(fd);
    return r;
}
