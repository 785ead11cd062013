/* The secret canary (--deny-content FILE): one secret per line, such as the
 * live token values the operator's environment holds. A change set whose new
 * content, symlink targets or paths contain any of them is refused: the
 * agent saw the secret, and the change set must not carry it out. Plain
 * substring matching (no encodings): it catches a pasted token, not one the
 * agent disguised, which is why the broker keeps real tokens out of reach. */
#ifndef REVRUN_WB_DENY_H
#define REVRUN_WB_DENY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

#define WB_DENY_MAX_FILE (1u << 20)
#define WB_DENY_MAX_SECRETS 1024
#define WB_DENY_MIN_LEN 4 /* shorter ones would match everywhere */
#define WB_DENY_MAX_LEN 4096

struct wb_deny {
    char **secret;
    size_t *len;
    size_t n;
    size_t maxlen;
};

/* Parse the file's text (lines; a trailing \r is dropped; blank lines skipped). */
int wb_deny_parse(const char *text, size_t len, struct wb_deny *d, struct rr_error *err);
int wb_deny_load(const char *path, struct wb_deny *d, struct rr_error *err);
void wb_deny_free(struct wb_deny *d);

bool wb_deny_match(const struct wb_deny *d, const void *buf, size_t len);

/* Matching over content read in chunks: a secret split across two chunks is
 * still found. */
struct wb_deny_stream {
    const struct wb_deny *d;
    unsigned char *tail; /* last maxlen-1 bytes seen */
    size_t tail_len;
    unsigned char *seam; /* scratch for the tail + the next chunk's head */
    bool hit;
};

int wb_deny_stream_init(struct wb_deny_stream *s, const struct wb_deny *d, struct rr_error *err);
void wb_deny_stream_feed(struct wb_deny_stream *s, const void *buf, size_t len);
void wb_deny_stream_free(struct wb_deny_stream *s);

#endif
