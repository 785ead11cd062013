/* The one JSON module. yajl has been unmaintained upstream since 2015, so it
 * is used here and nowhere else: swapping it is a change to json.c (parsing)
 * and json_write.c (writing) only.
 *
 * Parsing builds a small tree of json_node. All input is treated as hostile:
 * the size, nesting depth, node count, string length and object width are
 * capped before or while parsing, duplicate keys and NUL bytes are refused,
 * strings must be valid UTF-8, and every error names the JSON path where it
 * happened ("linux.namespaces[3].type"). */
#ifndef REVRUN_JSON_H
#define REVRUN_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum json_type {
    JSON_NULL,
    JSON_BOOL,
    JSON_INT,    /* an integer that fits int64_t */
    JSON_NUMBER, /* anything else numeric: fractions, exponents, huge integers */
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT,
};

struct json_node {
    enum json_type type;
    union {
        bool boolean;
        int64_t integer;
        struct {
            char *text; /* the number as written; never converted silently */
        } number;
        struct {
            char *s; /* NUL-terminated; contains no NUL (refused) */
            size_t len;
        } string;
        struct {
            struct json_node **items;
            size_t n;
        } array;
        struct {
            char **keys;
            struct json_node **values;
            size_t n;
        } object;
    } u;
};

struct json_limits {
    size_t max_bytes;    /* whole document */
    unsigned max_depth;  /* nested arrays/objects */
    size_t max_nodes;    /* values in the document */
    size_t max_string;   /* bytes in one string or key */
    size_t max_members;  /* keys in one object */
};

/* Limits for config.json and other operator files. */
extern const struct json_limits json_limits_config;

/* Parse buf[0..len). On success *out owns the tree (free with json_free). */
int json_parse(const char *buf, size_t len, const struct json_limits *lim, struct json_node **out,
               struct rr_error *err);

/* Read the file at dirfd/path (no symlink followed for the last component) and
 * parse it. The size cap is checked before reading and while reading. */
int json_parse_file(int dirfd, const char *path, const struct json_limits *lim,
                    struct json_node **out, struct rr_error *err);

void json_free(struct json_node *node);

/* Object member lookup; NULL when absent or when obj is not an object. */
const struct json_node *json_get(const struct json_node *obj, const char *key);

const char *json_type_name(enum json_type t);

/* ---- writing ---- */

struct json_writer;

struct json_writer *json_writer_new(bool pretty);
void json_writer_free(struct json_writer *w);

/* Each call records the first failure; json_writer_finish reports it. */
void json_w_begin_object(struct json_writer *w);
void json_w_end_object(struct json_writer *w);
void json_w_begin_array(struct json_writer *w);
void json_w_end_array(struct json_writer *w);
void json_w_key(struct json_writer *w, const char *key);
/* A string that is known to be valid UTF-8 (fails otherwise). */
void json_w_string(struct json_writer *w, const char *s);
/* Arbitrary bytes (file names, symlink targets): valid UTF-8 passes through,
 * every invalid byte is written as the four characters \xHH, and a literal
 * backslash as \\ so the escaping cannot be confused with the input. */
void json_w_bytes(struct json_writer *w, const char *s, size_t len);
void json_w_int(struct json_writer *w, int64_t v);
void json_w_uint(struct json_writer *w, uint64_t v);
void json_w_bool(struct json_writer *w, bool v);
void json_w_null(struct json_writer *w);

/* Convenience: key + value. */
void json_w_kv_string(struct json_writer *w, const char *key, const char *value);
void json_w_kv_int(struct json_writer *w, const char *key, int64_t value);
void json_w_kv_uint(struct json_writer *w, const char *key, uint64_t value);
void json_w_kv_bool(struct json_writer *w, const char *key, bool value);

/* The finished document (NUL-terminated, caller frees), or an error. */
int json_writer_finish(struct json_writer *w, char **out, size_t *len, struct rr_error *err);

/* True when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
bool json_utf8_valid(const char *s, size_t len);

#endif
