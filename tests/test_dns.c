/* The sandbox's NXDOMAIN replies (egress/dns.c): the shape stub resolvers
 * accept as a final "no such name". */
#include <string.h>

#include "egress/dns.h"
#include "tests/tap.h"

/* example.com A, ID 0xbeef, RD */
static const uint8_t query[] = {0xbe, 0xef, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
                                0x00, 0x00, 7,    'e',  'x',  'a',  'm',  'p',  'l',  'e',
                                3,    'c',  'o',  'm',  0,    0x00, 0x01, 0x00, 0x01};

TEST(a_query_gets_nxdomain_with_its_question)
{
    uint8_t r[DNS_MSG_MAX];
    size_t n = dns_nxdomain_reply(query, sizeof(query), r, sizeof(r));

    CHECK(n == sizeof(query));
    CHECK(r[0] == 0xbe && r[1] == 0xef);      /* same ID */
    CHECK((r[2] & 0x80) && (r[2] & 0x01));     /* a response, RD kept */
    CHECK((r[3] & 0x80) && (r[3] & 0x0f) == 3); /* RA, NXDOMAIN */
    CHECK(r[5] == 1 && r[7] == 0 && r[9] == 0 && r[11] == 0);
    CHECK(memcmp(r + 12, query + 12, sizeof(query) - 12) == 0);
}

TEST(malformed_queries_get_formerr_and_responses_nothing)
{
    uint8_t q[sizeof(query)], r[DNS_MSG_MAX];

    memcpy(q, query, sizeof(q));
    q[12] = 64; /* label too long */
    CHECK(dns_nxdomain_reply(q, sizeof(q), r, sizeof(r)) == 12 && (r[3] & 0x0f) == 1);
    CHECK(dns_nxdomain_reply(query, sizeof(query) - 2, r, sizeof(r)) == 12 && (r[3] & 0x0f) == 1);
    memcpy(q, query, sizeof(q));
    q[5] = 2; /* two questions */
    CHECK(dns_nxdomain_reply(q, sizeof(q), r, sizeof(r)) == 12 && (r[3] & 0x0f) == 1);
    memcpy(q, query, sizeof(q));
    q[2] = 0x80; /* a response: never answered (no loops) */
    CHECK(dns_nxdomain_reply(q, sizeof(q), r, sizeof(r)) == 0);
    memcpy(q, query, sizeof(q));
    q[2] = 0x28; /* opcode UPDATE */
    CHECK(dns_nxdomain_reply(q, sizeof(q), r, sizeof(r)) == 12 && (r[3] & 0x0f) == 4);
    CHECK(dns_nxdomain_reply(query, 11, r, sizeof(r)) == 0);
    CHECK(dns_nxdomain_reply(query, sizeof(query), r, 20) == 12 && (r[3] & 0x0f) == 1);
}
