/* Parsing JSON. yajl lives here and in json_write.c only (see json.h). */
#include "bundle/json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "common/cleanup.h"
#include "common/escape.h"

const struct json_limits json_limits_config = {
    .max_bytes = 1024 * 1024,
    .max_depth = 32,
    .max_nodes = 65536,
    .max_string = 64 * 1024,
    .max_members = 1024,
};

/* ---- parsing ---- */

struct frame {
    struct json_node *node; /* the open array or object */
    char *pending_key;      /* object: key read, value not yet */
    size_t cap;             /* allocated slots */
};

struct builder {
    const struct json_limits *lim;
    yajl_handle h;
    size_t bad_escape; /* offset of the first unpaired \uD800-\uDFFF, or SIZE_MAX */
    struct frame *stack;
    unsigned depth;
    size_t nodes;
    struct json_node *root;
    struct rr_error *err;
    bool failed;
};

const char *json_type_name(enum json_type t)
{
    switch (t) {
    case JSON_NULL:
        return "null";
    case JSON_BOOL:
        return "boolean";
    case JSON_INT:
        return "integer";
    case JSON_NUMBER:
        return "number";
    case JSON_STRING:
        return "string";
    case JSON_ARRAY:
        return "array";
    case JSON_OBJECT:
        return "object";
    }
    return "?";
}

/* The JSON path of the value being parsed now, for error messages. Keys come
 * from the document, so they are shown escaped. */
static void builder_path(const struct builder *b, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < b->depth && used + 1 < len; i++) {
        const struct frame *f = &b->stack[i];
        int n;

        if (f->node->type == JSON_ARRAY) {
            n = snprintf(buf + used, len - used, "[%zu]", f->node->u.array.n);
        } else if (f->pending_key != NULL) {
            char safe[96];
            size_t j = 0;
            for (const char *k = f->pending_key; *k != '\0' && j + 5 < sizeof(safe); k++) {
                unsigned char c = (unsigned char)*k;
                if (c >= 0x20 && c < 0x7f)
                    safe[j++] = (char)c;
                else
                    j += (size_t)snprintf(safe + j, sizeof(safe) - j, "\\x%02x", c);
            }
            safe[j] = '\0';
            n = snprintf(buf + used, len - used, "%s%s", used ? "." : "", safe);
        } else {
            n = 0;
        }
        if (n < 0)
            break;
        used += (size_t)n;
        if (used >= len)
            used = len - 1;
    }
    if (buf[0] == '\0')
        snprintf(buf, len, "(top level)");
}

static int builder_fail(struct builder *b, const char *what)
{
    char path[512];

    if (!b->failed) {
        builder_path(b, path, sizeof(path));
        rr_fail(b->err, 0, "%s: %s", path, what);
        b->failed = true;
    }
    return 0; /* tells yajl to stop */
}

static struct json_node *node_new(struct builder *b, enum json_type type)
{
    struct json_node *n;

    if (++b->nodes > b->lim->max_nodes) {
        builder_fail(b, "too many values in the document");
        return NULL;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL) {
        builder_fail(b, "out of memory");
        return NULL;
    }
    n->type = type;
    return n;
}

static int grow(struct builder *b, struct frame *f)
{
    size_t n = f->node->type == JSON_ARRAY ? f->node->u.array.n : f->node->u.object.n;
    size_t cap;

    if (n < f->cap)
        return 0;
    cap = f->cap ? f->cap * 2 : 8;
    if (f->node->type == JSON_ARRAY) {
        void *items = realloc(f->node->u.array.items, cap * sizeof(void *));
        if (items == NULL)
            return builder_fail(b, "out of memory"), -1;
        f->node->u.array.items = items;
    } else {
        void *keys = realloc(f->node->u.object.keys, cap * sizeof(char *));
        if (keys == NULL)
            return builder_fail(b, "out of memory"), -1;
        f->node->u.object.keys = keys;
        void *vals = realloc(f->node->u.object.values, cap * sizeof(void *));
        if (vals == NULL)
            return builder_fail(b, "out of memory"), -1;
        f->node->u.object.values = vals;
    }
    f->cap = cap;
    return 0;
}

/* Attach a finished value to the open container (or make it the root). */
static int attach(struct builder *b, struct json_node *n)
{
    struct frame *f;

    if (n == NULL)
        return 0;
    if (b->depth == 0) {
        b->root = n;
        return 1;
    }
    f = &b->stack[b->depth - 1];
    if (grow(b, f) < 0) {
        json_free(n);
        return 0;
    }
    if (f->node->type == JSON_ARRAY) {
        f->node->u.array.items[f->node->u.array.n++] = n;
    } else {
        size_t i = f->node->u.object.n++;
        f->node->u.object.keys[i] = f->pending_key;
        f->node->u.object.values[i] = n;
        f->pending_key = NULL;
    }
    return 1;
}

static int cb_null(void *ctx)
{
    struct builder *b = ctx;
    return attach(b, node_new(b, JSON_NULL));
}

static int cb_boolean(void *ctx, int value)
{
    struct builder *b = ctx;
    struct json_node *n = node_new(b, JSON_BOOL);

    if (n != NULL)
        n->u.boolean = value != 0;
    return attach(b, n);
}

static bool is_plain_integer(const char *s, size_t len)
{
    size_t i = (len > 0 && s[0] == '-') ? 1 : 0;

    if (i == len)
        return false;
    for (; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static int cb_number(void *ctx, const char *s, size_t len)
{
    struct builder *b = ctx;
    struct json_node *n;
    char buf[64];

    if (len >= sizeof(buf))
        return builder_fail(b, "number is too long");
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (is_plain_integer(buf, len)) {
        char *end;
        long long v;
        errno = 0;
        v = strtoll(buf, &end, 10);
        if (errno == 0 && *end == '\0') {
            n = node_new(b, JSON_INT);
            if (n != NULL)
                n->u.integer = v;
            return attach(b, n);
        }
    }
    n = node_new(b, JSON_NUMBER);
    if (n != NULL) {
        n->u.number.text = strdup(buf);
        if (n->u.number.text == NULL) {
            free(n);
            return builder_fail(b, "out of memory");
        }
    }
    return attach(b, n);
}

static char *checked_string(struct builder *b, const unsigned char *s, size_t len)
{
    char *copy;

    if (len > b->lim->max_string) {
        builder_fail(b, "string is too long");
        return NULL;
    }
    if (memchr(s, '\0', len) != NULL) {
        builder_fail(b, "string contains a NUL byte");
        return NULL;
    }
    /* yajl decodes an unpaired surrogate escape to "?" or to a wrong code
     * point. The first string that ends past the first such escape is the
     * one that holds it. */
    if (yajl_get_bytes_consumed(b->h) > b->bad_escape) {
        builder_fail(b, "unpaired UTF-16 surrogate in a \\u escape");
        return NULL;
    }
    /* yajl's own check lets overlongs, surrogates and code points above
     * U+10FFFF through. */
    if (!json_utf8_valid((const char *)s, len)) {
        builder_fail(b, "string is not valid UTF-8");
        return NULL;
    }
    copy = malloc(len + 1);
    if (copy == NULL) {
        builder_fail(b, "out of memory");
        return NULL;
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static int cb_string(void *ctx, const unsigned char *s, size_t len)
{
    struct builder *b = ctx;
    char *copy = checked_string(b, s, len);
    struct json_node *n;

    if (copy == NULL)
        return 0;
    n = node_new(b, JSON_STRING);
    if (n == NULL) {
        free(copy);
        return 0;
    }
    n->u.string.s = copy;
    n->u.string.len = len;
    return attach(b, n);
}

static int open_container(struct builder *b, enum json_type type)
{
    struct json_node *n;

    if (b->depth >= b->lim->max_depth)
        return builder_fail(b, "nested too deeply");
    n = node_new(b, type);
    if (n == NULL)
        return 0;
    b->stack[b->depth] = (struct frame){.node = n};
    b->depth++;
    return 1;
}

static int close_container(struct builder *b)
{
    struct frame f = b->stack[--b->depth];

    free(f.pending_key);
    return attach(b, f.node);
}

static int cb_start_map(void *ctx)
{
    return open_container(ctx, JSON_OBJECT);
}

static int cb_map_key(void *ctx, const unsigned char *key, size_t len)
{
    struct builder *b = ctx;
    struct frame *f = &b->stack[b->depth - 1];
    char *copy;

    if (f->node->u.object.n >= b->lim->max_members)
        return builder_fail(b, "object has too many members");
    copy = checked_string(b, key, len);
    if (copy == NULL)
        return 0;
    f->pending_key = copy;
    for (size_t i = 0; i < f->node->u.object.n; i++)
        if (strcmp(f->node->u.object.keys[i], copy) == 0)
            return builder_fail(b, "duplicate key");
    return 1;
}

static int cb_end(void *ctx)
{
    return close_container(ctx);
}

static int cb_start_array(void *ctx)
{
    return open_container(ctx, JSON_ARRAY);
}

static const yajl_callbacks callbacks = {
    .yajl_null = cb_null,
    .yajl_boolean = cb_boolean,
    .yajl_number = cb_number,
    .yajl_string = cb_string,
    .yajl_start_map = cb_start_map,
    .yajl_map_key = cb_map_key,
    .yajl_end_map = cb_end,
    .yajl_start_array = cb_start_array,
    .yajl_end_array = cb_end,
};

static void builder_release(struct builder *b)
{
    /* Unwind what an aborted parse left open. */
    while (b->depth > 0) {
        struct frame f = b->stack[--b->depth];
        free(f.pending_key);
        json_free(f.node);
    }
    free(b->stack);
    json_free(b->root);
    b->root = NULL;
}

static int syntax_error(yajl_handle h, const char *buf, size_t len, struct rr_error *err)
{
    unsigned char *msg = yajl_get_error(h, 0, (const unsigned char *)buf, len);
    const char *text = msg ? (const char *)msg : "parse error";
    size_t at = yajl_get_bytes_consumed(h);

    /* yajl ends its message with a newline: the error stays one line. */
    rr_fail(err, 0, "malformed JSON near byte %zu: %.*s", at, (int)strcspn(text, "\n"), text);
    if (msg != NULL)
        yajl_free_error(h, msg);
    return -1;
}

/* The value of the \uXXXX escape at s (which starts at the backslash), or -1. */
static long hex_escape(const char *s, size_t avail)
{
    long v = 0;

    if (avail < 6 || s[0] != '\\' || s[1] != 'u')
        return -1;
    for (size_t i = 2; i < 6; i++) {
        int c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Offset of the first \u escape in a string that is a surrogate not paired
 * as high-then-low, or SIZE_MAX. Only a document yajl accepts needs the right
 * answer, and there a '"' outside a string always opens one. */
static size_t first_unpaired_surrogate(const char *buf, size_t len)
{
    bool in_string = false;

    for (size_t i = 0; i < len; i++) {
        if (buf[i] == '"') {
            in_string = !in_string;
        } else if (in_string && buf[i] == '\\') {
            long cp = hex_escape(buf + i, len - i);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                long lo = hex_escape(buf + i + 6, len - i - 6);
                if (lo < 0xdc00 || lo > 0xdfff)
                    return i;
                i += 6;
            } else if (cp >= 0xdc00 && cp <= 0xdfff) {
                return i;
            }
            i++; /* the escaped character */
        }
    }
    return SIZE_MAX;
}

int json_parse(const char *buf, size_t len, const struct json_limits *lim, struct json_node **out,
               struct rr_error *err)
{
    struct builder b = {.lim = lim, .err = err};
    yajl_handle h;
    yajl_status st;

    *out = NULL;
    if (len > lim->max_bytes)
        return rr_fail(err, EFBIG, "document is %zu bytes, the limit is %zu", len,
                       lim->max_bytes);
    b.stack = calloc(lim->max_depth + 1, sizeof(*b.stack));
    if (b.stack == NULL)
        return rr_fail(err, ENOMEM, "parsing JSON");
    h = yajl_alloc(&callbacks, NULL, &b);
    if (h == NULL) {
        free(b.stack);
        return rr_fail(err, ENOMEM, "parsing JSON");
    }
    b.h = h;
    b.bad_escape = first_unpaired_surrogate(buf, len);
    st = yajl_parse(h, (const unsigned char *)buf, len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(h);
    if (st != yajl_status_ok) {
        if (!b.failed)
            syntax_error(h, buf, len, err);
        yajl_free(h);
        builder_release(&b);
        return -1;
    }
    yajl_free(h);
    if (b.root == NULL || b.depth != 0) {
        builder_release(&b);
        return rr_fail(err, 0, "malformed JSON: empty or incomplete document");
    }
    *out = b.root;
    b.root = NULL;
    builder_release(&b);
    return 0;
}

int json_parse_file(int dirfd, const char *path, const struct json_limits *lim,
                    struct json_node **out, struct rr_error *err)
{
    _cleanup_close_ int fd = -1;
    _cleanup_free_ char *buf = NULL;
    struct stat st;
    size_t used = 0;

    fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return rr_fail(err, errno, "open %s", path);
    if (fstat(fd, &st) < 0)
        return rr_fail(err, errno, "stat %s", path);
    if (!S_ISREG(st.st_mode))
        return rr_fail(err, 0, "%s: not a regular file", path);
    if ((uint64_t)st.st_size > lim->max_bytes)
        return rr_fail(err, EFBIG, "%s: %jd bytes, the limit is %zu", path, (intmax_t)st.st_size,
                       lim->max_bytes);
    buf = malloc(lim->max_bytes + 1);
    if (buf == NULL)
        return rr_fail(err, ENOMEM, "reading %s", path);
    /* The file may grow between fstat and read: the cap holds while reading. */
    for (;;) {
        ssize_t n = read(fd, buf + used, lim->max_bytes + 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return rr_fail(err, errno, "read %s", path);
        if (n == 0)
            break;
        used += (size_t)n;
        if (used > lim->max_bytes)
            return rr_fail(err, EFBIG, "%s: larger than the limit of %zu bytes", path,
                           lim->max_bytes);
    }
    if (json_parse(buf, used, lim, out, err) < 0)
        return rr_wrap(err, "%s", path);
    return 0;
}

void json_free(struct json_node *n)
{
    if (n == NULL)
        return;
    switch (n->type) {
    case JSON_NUMBER:
        free(n->u.number.text);
        break;
    case JSON_STRING:
        free(n->u.string.s);
        break;
    case JSON_ARRAY:
        for (size_t i = 0; i < n->u.array.n; i++)
            json_free(n->u.array.items[i]);
        free(n->u.array.items);
        break;
    case JSON_OBJECT:
        for (size_t i = 0; i < n->u.object.n; i++) {
            free(n->u.object.keys[i]);
            json_free(n->u.object.values[i]);
        }
        free(n->u.object.keys);
        free(n->u.object.values);
        break;
    default:
        break;
    }
    free(n);
}

const struct json_node *json_get(const struct json_node *obj, const char *key)
{
    if (obj == NULL || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->u.object.n; i++)
        if (strcmp(obj->u.object.keys[i], key) == 0)
            return obj->u.object.values[i];
    return NULL;
}
