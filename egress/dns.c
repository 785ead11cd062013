/* The NXDOMAIN resolver (see dns.h). */
#include "egress/dns.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/cleanup.h"

enum { RCODE_FORMERR = 1, RCODE_NXDOMAIN = 3, RCODE_NOTIMP = 4 };

/* Length of the question section (one QNAME + QTYPE + QCLASS) at q, or 0.
 * Labels only: a query has no compression pointers. */
static size_t question_len(const uint8_t *q, size_t n)
{
    size_t i = 0;

    while (i < n && q[i] != 0) {
        if (q[i] > 63)
            return 0;
        i += (size_t)q[i] + 1;
        if (i > 255)
            return 0;
    }
    if (i >= n || n - i - 1 < 4)
        return 0;
    return i + 1 + 4;
}

size_t dns_nxdomain_reply(const uint8_t *q, size_t n, uint8_t *out, size_t cap)
{
    unsigned opcode, qd;
    size_t ql = 0, len;
    int rcode = RCODE_NXDOMAIN;

    if (n < 12 || cap < 12 || (q[2] & 0x80))
        return 0;
    opcode = (q[2] >> 3) & 0x0f;
    qd = ((unsigned)q[4] << 8) | q[5];
    if (opcode != 0)
        rcode = RCODE_NOTIMP;
    else if (qd != 1 || (ql = question_len(q + 12, n - 12)) == 0 || 12 + ql > cap)
        rcode = RCODE_FORMERR;
    if (rcode != RCODE_NXDOMAIN)
        ql = 0;
    memset(out, 0, 12);
    out[0] = q[0]; /* ID */
    out[1] = q[1];
    /* QR, the query's opcode and RD; AA clear; RA set: a recursive
     * resolver's final answer, which stub resolvers do not retry. */
    out[2] = (uint8_t)(0x80 | (q[2] & 0x79));
    out[3] = (uint8_t)(0x80 | rcode);
    out[5] = ql ? 1 : 0;
    len = 12;
    if (ql) {
        memcpy(out + 12, q + 12, ql);
        len += ql;
    }
    return len;
}

static int bind_lo(int type, struct rr_error *err)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(DNS_PORT),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    _cleanup_close_ int fd = socket(AF_INET, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;

    if (fd < 0)
        return rr_fail(err, errno, "dns: socket");
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return rr_fail(err, errno, "dns: bind 127.0.0.1:%d", DNS_PORT);
    if (type == SOCK_STREAM && listen(fd, 16) < 0)
        return rr_fail(err, errno, "dns: listen");
    return rr_steal_fd(&fd);
}

int dns_listen(int *udp_fd, int *tcp_fd, struct rr_error *err)
{
    *udp_fd = bind_lo(SOCK_DGRAM, err);
    if (*udp_fd < 0)
        return -1;
    *tcp_fd = bind_lo(SOCK_STREAM, err);
    if (*tcp_fd < 0) {
        close(*udp_fd);
        *udp_fd = -1;
        return -1;
    }
    return 0;
}

static void serve_udp(int fd)
{
    uint8_t q[DNS_MSG_MAX], r[DNS_MSG_MAX];
    struct sockaddr_storage from;
    socklen_t fl = sizeof(from);
    ssize_t n = recvfrom(fd, q, sizeof(q), MSG_TRUNC, (struct sockaddr *)&from, &fl);
    size_t len;

    if (n <= 0)
        return;
    len = dns_nxdomain_reply(q, (size_t)n > sizeof(q) ? sizeof(q) : (size_t)n, r, sizeof(r));
    if (len > 0)
        sendto(fd, r, len, MSG_NOSIGNAL, (struct sockaddr *)&from, fl);
}

/* Read exactly n bytes within the connection's time; false otherwise. */
static bool read_full(int fd, uint8_t *buf, size_t n)
{
    size_t got = 0;

    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        ssize_t r;
        if (poll(&p, 1, 1000) <= 0)
            return false;
        r = read(fd, buf + got, n - got);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

/* One connection, one query at a time, a second of patience each: the
 * agent is the only client, and a slow one only delays itself. */
static void serve_tcp(int lfd)
{
    _cleanup_close_ int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    uint8_t q[DNS_MSG_MAX], r[2 + DNS_MSG_MAX], hdr[2];

    if (c < 0)
        return;
    while (read_full(c, hdr, 2)) {
        size_t qn = ((size_t)hdr[0] << 8) | hdr[1], len;
        if (qn == 0 || qn > sizeof(q) || !read_full(c, q, qn))
            return;
        len = dns_nxdomain_reply(q, qn, r + 2, sizeof(r) - 2);
        if (len == 0)
            return;
        r[0] = (uint8_t)(len >> 8);
        r[1] = (uint8_t)len;
        if (send(c, r, len + 2, MSG_NOSIGNAL) != (ssize_t)(len + 2))
            return;
    }
}

int dns_serve(int udp_fd, int tcp_fd, struct rr_error *err)
{
    for (;;) {
        struct pollfd p[2] = {{.fd = udp_fd, .events = POLLIN}, {.fd = tcp_fd, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return rr_fail(err, errno, "dns: poll");
        }
        if (p[0].revents & POLLIN)
            serve_udp(udp_fd);
        if (p[1].revents & POLLIN)
            serve_tcp(tcp_fd);
    }
}
