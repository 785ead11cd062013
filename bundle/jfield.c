#include "bundle/jfield.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/escape.h"

void jpath_key(char *out, const char *parent, const char *key)
{
    char safe[96];

    /* Keys come from the document: shown escaped. */
    rr_escape(key, strlen(key), safe, sizeof(safe));
    if (parent[0] == '\0')
        snprintf(out, JPATH_MAX, "%s", safe);
    else
        snprintf(out, JPATH_MAX, "%s.%s", parent, safe);
}

void jpath_index(char *out, const char *parent, size_t i)
{
    snprintf(out, JPATH_MAX, "%s[%zu]", parent, i);
}

static const char *shown(const char *path)
{
    return path[0] ? path : "(top level)";
}

int jf_expect(const struct json_node *n, enum json_type t, const char *path, struct rr_error *err)
{
    if (n->type == t)
        return 0;
    if (t == JSON_INT && n->type == JSON_NUMBER)
        return rr_fail(err, 0, "%s: expected an integer in range, got %s", shown(path),
                       n->u.number.text);
    return rr_fail(err, 0, "%s: expected %s, got %s", shown(path), json_type_name(t),
                   json_type_name(n->type));
}

int jf_only_keys(const struct json_node *obj, const char *path, const char *const *allowed,
                 struct rr_error *err)
{
    if (jf_expect(obj, JSON_OBJECT, path, err) < 0)
        return -1;
    for (size_t i = 0; i < obj->u.object.n; i++) {
        const char *k = obj->u.object.keys[i];
        bool ok = false;
        for (const char *const *a = allowed; *a != NULL && !ok; a++)
            ok = strcmp(*a, k) == 0;
        if (!ok) {
            char p[JPATH_MAX];
            jpath_key(p, path, k);
            return rr_fail(err, 0,
                           "%s: unknown or unsupported key (revrun refuses what it would "
                           "otherwise ignore)",
                           p);
        }
    }
    return 0;
}

static const struct json_node *member(const struct json_node *obj, const char *key,
                                      const char *path, char *p)
{
    jpath_key(p, path, key);
    return json_get(obj, key);
}

int jf_string(const struct json_node *obj, const char *key, const char *path, bool required,
              char **out, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL)
        return required ? rr_fail(err, 0, "%s: required", p) : 0;
    if (jf_expect(n, JSON_STRING, p, err) < 0)
        return -1;
    free(*out);
    *out = strdup(n->u.string.s);
    if (*out == NULL)
        return rr_fail(err, ENOMEM, "%s", p);
    return 0;
}

int jf_bool(const struct json_node *obj, const char *key, const char *path, bool *out,
            bool *present, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (present != NULL)
        *present = n != NULL;
    if (n == NULL)
        return 0;
    if (jf_expect(n, JSON_BOOL, p, err) < 0)
        return -1;
    *out = n->u.boolean;
    return 0;
}

int jf_u32(const struct json_node *obj, const char *key, const char *path, bool required,
           uint32_t *out, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL)
        return required ? rr_fail(err, 0, "%s: required", p) : 0;
    if (jf_expect(n, JSON_INT, p, err) < 0)
        return -1;
    if (n->u.integer < 0 || n->u.integer > UINT32_MAX)
        return rr_fail(err, 0, "%s: %lld is out of range 0..%u", p, (long long)n->u.integer,
                       UINT32_MAX);
    *out = (uint32_t)n->u.integer;
    return 0;
}

int jf_i64(const struct json_node *obj, const char *key, const char *path, int64_t min,
           int64_t *out, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL)
        return 0;
    if (jf_expect(n, JSON_INT, p, err) < 0)
        return -1;
    if (n->u.integer < min)
        return rr_fail(err, 0, "%s: %lld is below the minimum %lld", p, (long long)n->u.integer,
                       (long long)min);
    *out = n->u.integer;
    return 0;
}

int jf_u64(const struct json_node *obj, const char *key, const char *path, uint64_t *out,
           bool *present, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (present != NULL)
        *present = n != NULL;
    if (n == NULL)
        return 0;
    if (n->type == JSON_NUMBER && n->u.number.text[0] >= '0' && n->u.number.text[0] <= '9' &&
        strspn(n->u.number.text, "0123456789") == strlen(n->u.number.text)) {
        /* Above INT64_MAX but maybe within uint64 (rlimits use 2^64-1). */
        char *end;
        errno = 0;
        unsigned long long v = strtoull(n->u.number.text, &end, 10);
        if (errno != 0 || *end != '\0')
            return rr_fail(err, 0, "%s: %s is out of range", p, n->u.number.text);
        *out = v;
        return 0;
    }
    if (jf_expect(n, JSON_INT, p, err) < 0)
        return -1;
    if (n->u.integer < 0)
        return rr_fail(err, 0, "%s: must not be negative", p);
    *out = (uint64_t)n->u.integer;
    return 0;
}

int jf_strv(const struct json_node *obj, const char *key, const char *path, struct rr_strv *out,
            struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL)
        return 0;
    if (jf_expect(n, JSON_ARRAY, p, err) < 0)
        return -1;
    strv_free(out);
    for (size_t i = 0; i < n->u.array.n; i++) {
        char ip[JPATH_MAX];
        jpath_index(ip, p, i);
        if (jf_expect(n->u.array.items[i], JSON_STRING, ip, err) < 0)
            return -1;
        if (strv_push(out, n->u.array.items[i]->u.string.s) < 0)
            return rr_fail(err, ENOMEM, "%s", ip);
    }
    return 0;
}

int jf_strv_or_string(const struct json_node *obj, const char *key, const char *path,
                      struct rr_strv *out, struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL || n->type != JSON_STRING)
        return jf_strv(obj, key, path, out, err);
    strv_free(out);
    if (strv_push(out, n->u.string.s) < 0)
        return rr_fail(err, ENOMEM, "%s", p);
    return 0;
}

int jf_size(const struct json_node *obj, const char *key, const char *path, uint64_t *out,
            struct rr_error *err)
{
    char p[JPATH_MAX];
    const struct json_node *n = member(obj, key, path, p);

    if (n == NULL)
        return 0;
    if (n->type == JSON_STRING) {
        if (!parse_size(n->u.string.s, out))
            return rr_fail(err, 0, "%s: not a size (bytes, or a number with K, M, G or T)", p);
        return 0;
    }
    return jf_u64(obj, key, path, out, NULL, err);
}

int jf_check_abs_path(const char *value, const char *path, struct rr_error *err)
{
    const char *c = value;

    if (value[0] != '/')
        return rr_fail(err, 0, "%s: must be an absolute path", path);
    if (strlen(value) >= PATH_MAX)
        return rr_fail(err, 0, "%s: path is too long", path);
    while (*c != '\0') {
        size_t slashes = strspn(c, "/");
        /* "//x" is "/x" to the kernel but not to a string comparison (the
         * profile's "/" and checkout rules compare strings). */
        if (slashes > 1)
            return rr_fail(err, 0, "%s: empty components (\"//\") are not allowed", path);
        c += slashes;
        size_t len = strcspn(c, "/");
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return rr_fail(err, 0, "%s: \".\" and \"..\" components are not allowed", path);
        c += len;
    }
    return 0;
}

int jf_check_rel_path(const char *value, const char *path, struct rr_error *err)
{
    const char *c = value;

    if (value[0] == '\0' || value[0] == '/')
        return rr_fail(err, 0, "%s: must be a relative path", path);
    if (strlen(value) > 1024)
        return rr_fail(err, 0, "%s: path is too long", path);
    for (const unsigned char *b = (const unsigned char *)value; *b != '\0'; b++)
        if (*b < 0x20 || *b == 0x7f)
            return rr_fail(err, 0, "%s: control characters are not allowed", path);
    while (*c != '\0') {
        size_t len = strcspn(c, "/");
        if (len == 0 || len > 255 || (len == 1 && c[0] == '.') ||
            (len == 2 && c[0] == '.' && c[1] == '.'))
            return rr_fail(err, 0, "%s: empty, \".\", \"..\" or over-long components are not "
                                   "allowed", path);
        c += len;
        if (*c == '/' && c[1] == '\0')
            return rr_fail(err, 0, "%s: no trailing slash", path);
        if (*c == '/')
            c++;
    }
    return 0;
}
