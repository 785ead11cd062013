/* The upstream's response head, and the echo guard over its bytes. The
 * upstream is authenticated by TLS but is still a peer whose bytes are
 * bounded and parsed strictly before they are rewritten. */
#include <string.h>

#include "egress/http_head.h"

/* "HTTP/1.x SP 3DIGIT SP reason" */
static int parse_status_line(const char *line, size_t n, struct eg_response *resp)
{
    if (n < 12 || memcmp(line, "HTTP/1.", 7) != 0 || (line[7] != '0' && line[7] != '1') ||
        line[8] != ' ' || line[12] != ' ')
        return -1;
    resp->status = 0;
    for (size_t i = 9; i < 12; i++) {
        if (line[i] < '0' || line[i] > '9')
            return -1;
        resp->status = resp->status * 10 + (line[i] - '0');
    }
    if (resp->status < 100 || !eg_is_field_value(line + 13, n - 13))
        return -1;
    return 0;
}

int eg_response_parse(const char *buf, size_t len, size_t max_head, struct eg_response *resp)
{
    size_t line_len = 0, next = 0;
    int r = eg_next_line(buf, len, 0, &line_len, &next);

    if (r == EG_NEED_MORE)
        return len >= max_head ? EG_REFUSED : EG_NEED_MORE;
    if (r == EG_REFUSED || parse_status_line(buf, line_len, resp) < 0)
        return EG_REFUSED;
    r = eg_parse_fields(buf, len, next, max_head, EG_HEADERS_MAX, resp->headers,
                        &resp->n_headers, &resp->head_len);
    if (r == EG_NEED_MORE || r == EG_COMPLETE)
        return r;
    return EG_REFUSED;
}

int eg_guard_scan(const char *secret, size_t secret_len, const char *work, size_t len,
                  size_t *send)
{
    size_t hold = secret_len - 1 < len ? secret_len - 1 : len;

    if (secret_len == 0) {
        *send = len;
        return 0;
    }
    if (memmem(work, len, secret, secret_len) != NULL)
        return -1;
    /* The longest tail of work that the secret starts with. */
    for (; hold > 0; hold--)
        if (memcmp(work + len - hold, secret, hold) == 0)
            break;
    *send = len - hold;
    return 0;
}
