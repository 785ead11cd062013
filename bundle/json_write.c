/* Writing JSON (json.h "writing"), and the UTF-8 check both directions
 * use. yajl's generator lives here and only here; its parser, in json.c. */
#include "bundle/json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "common/cleanup.h"
#include "common/escape.h"

/* ---- UTF-8 ---- */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. */
static size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
    uint32_t cp;

    return rr_utf8_decode(s, avail, &cp);
}

bool json_utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;

    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq_len(p + i, len - i);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

/* ---- writing ---- */

struct json_writer {
    yajl_gen gen;
    yajl_gen_status status;
    const char *failed_at;
};

struct json_writer *json_writer_new(bool pretty)
{
    struct json_writer *w = calloc(1, sizeof(*w));

    if (w == NULL)
        return NULL;
    w->gen = yajl_gen_alloc(NULL);
    if (w->gen == NULL) {
        free(w);
        return NULL;
    }
    yajl_gen_config(w->gen, yajl_gen_validate_utf8, 1);
    if (pretty) {
        yajl_gen_config(w->gen, yajl_gen_beautify, 1);
        yajl_gen_config(w->gen, yajl_gen_indent_string, "  ");
    }
    w->status = yajl_gen_status_ok;
    return w;
}

void json_writer_free(struct json_writer *w)
{
    if (w == NULL)
        return;
    yajl_gen_free(w->gen);
    free(w);
}

static void record(struct json_writer *w, yajl_gen_status st, const char *what)
{
    if (w->status == yajl_gen_status_ok && st != yajl_gen_status_ok) {
        w->status = st;
        w->failed_at = what;
    }
}

void json_w_begin_object(struct json_writer *w)
{
    record(w, yajl_gen_map_open(w->gen), "object");
}

void json_w_end_object(struct json_writer *w)
{
    record(w, yajl_gen_map_close(w->gen), "object end");
}

void json_w_begin_array(struct json_writer *w)
{
    record(w, yajl_gen_array_open(w->gen), "array");
}

void json_w_end_array(struct json_writer *w)
{
    record(w, yajl_gen_array_close(w->gen), "array end");
}

void json_w_key(struct json_writer *w, const char *key)
{
    json_w_string(w, key);
}

void json_w_string(struct json_writer *w, const char *s)
{
    size_t len = strlen(s);

    /* yajl_gen_validate_utf8 lets overlongs and surrogates through. */
    if (!json_utf8_valid(s, len)) {
        record(w, yajl_gen_invalid_string, "string");
        return;
    }
    record(w, yajl_gen_string(w->gen, (const unsigned char *)s, len), "string");
}

void json_w_bytes(struct json_writer *w, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    /* Worst case every byte becomes four characters. */
    _cleanup_free_ char *buf = malloc(len * 4 + 1);
    size_t o = 0;

    if (buf == NULL) {
        record(w, yajl_gen_in_error_state, "out of memory");
        return;
    }
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq_len(p + i, len - i);
        if (n == 0) {
            o += (size_t)snprintf(buf + o, 5, "\\x%02x", p[i]);
            i++;
        } else if (p[i] == '\\') {
            buf[o++] = '\\';
            buf[o++] = '\\';
            i++;
        } else {
            memcpy(buf + o, p + i, n);
            o += n;
            i += n;
        }
    }
    record(w, yajl_gen_string(w->gen, (const unsigned char *)buf, o), "bytes");
}

void json_w_int(struct json_writer *w, int64_t v)
{
    record(w, yajl_gen_integer(w->gen, (long long)v), "integer");
}

void json_w_uint(struct json_writer *w, uint64_t v)
{
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%" PRIu64, v);

    record(w, yajl_gen_number(w->gen, buf, (size_t)n), "integer");
}

void json_w_bool(struct json_writer *w, bool v)
{
    record(w, yajl_gen_bool(w->gen, v), "boolean");
}

void json_w_null(struct json_writer *w)
{
    record(w, yajl_gen_null(w->gen), "null");
}

void json_w_kv_string(struct json_writer *w, const char *key, const char *value)
{
    json_w_key(w, key);
    json_w_string(w, value);
}

void json_w_kv_int(struct json_writer *w, const char *key, int64_t value)
{
    json_w_key(w, key);
    json_w_int(w, value);
}

void json_w_kv_uint(struct json_writer *w, const char *key, uint64_t value)
{
    json_w_key(w, key);
    json_w_uint(w, value);
}

void json_w_kv_bool(struct json_writer *w, const char *key, bool value)
{
    json_w_key(w, key);
    json_w_bool(w, value);
}

int json_writer_finish(struct json_writer *w, char **out, size_t *len, struct rr_error *err)
{
    const unsigned char *buf;
    size_t n;

    if (w->status != yajl_gen_status_ok)
        return rr_fail(err, w->status == yajl_gen_in_error_state ? ENOMEM : EINVAL,
                       "writing JSON: invalid %s (yajl status %d)", w->failed_at,
                       (int)w->status);
    if (yajl_gen_get_buf(w->gen, &buf, &n) != yajl_gen_status_ok)
        return rr_fail(err, EINVAL, "writing JSON: incomplete document");
    *out = malloc(n + 1);
    if (*out == NULL)
        return rr_fail(err, ENOMEM, "writing JSON");
    memcpy(*out, buf, n);
    (*out)[n] = '\0';
    if (len != NULL)
        *len = n;
    return 0;
}
