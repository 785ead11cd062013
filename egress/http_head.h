/* Internal to egress/: the line and field syntax that the request and
 * response parsers share, and bounded appends for building heads. */
#ifndef REVRUN_EGRESS_HTTP_HEAD_H
#define REVRUN_EGRESS_HTTP_HEAD_H

#include "egress/http.h"

/* Fill *why; returns EG_REFUSED (-1). */
int eg_refuse(struct eg_refusal *why, int status, const char *reason);

/* The line starting at buf[pos]: EG_COMPLETE with its length (without CRLF)
 * and the offset after it; EG_NEED_MORE; EG_REFUSED on a bare CR or LF. */
int eg_next_line(const char *buf, size_t len, size_t pos, size_t *line_len, size_t *next);

/* One "name: value" line (without CRLF); -1 when malformed. */
int eg_parse_field(const char *line, size_t n, struct eg_header *h);

enum {
    EG_FIELDS_BAD = -1,
    EG_FIELDS_TOO_BIG = -2,
    EG_FIELDS_TOO_MANY = -3,
};

/* Field lines from buf[pos] up to the blank line. EG_COMPLETE with the
 * fields and the head length, EG_NEED_MORE, or an EG_FIELDS_* error. */
int eg_parse_fields(const char *buf, size_t len, size_t pos, size_t max_head, size_t max_fields,
                    struct eg_header *out, size_t *n_out, size_t *head_len);

/* Append to out[0..cap) at offset at; the new offset, or cap once anything
 * did not fit (so a result >= cap means overflow). */
size_t eg_buf_put(char *out, size_t cap, size_t at, const char *s, size_t n);
size_t eg_buf_puts(char *out, size_t cap, size_t at, const char *s);
/* "name: value\r\n" */
size_t eg_buf_field(char *out, size_t cap, size_t at, const struct eg_header *h);

#endif
