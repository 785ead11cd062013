/* bundle/json.c: the one JSON module. Each refusal and each cap has a test
 * that passes only while the rule is in place. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/json.h"
#include "tests/tap.h"

static struct rr_error err;
static struct json_node *doc;

/* Parse len bytes (strlen when len is 0) with lim (the config limits when
 * NULL); the tree stays in doc until the next call. */
static int parse_n(const char *text, size_t len, const struct json_limits *lim)
{
    json_free(doc);
    doc = NULL;
    err = (struct rr_error){0};
    return json_parse(text, len ? len : strlen(text), lim ? lim : &json_limits_config, &doc, &err);
}

static int parse(const char *text)
{
    return parse_n(text, 0, NULL);
}

/* The parse fails and the message contains want. */
static bool refused(const char *text, size_t len, const char *want)
{
    if (parse_n(text, len, NULL) == 0) {
        tap_note("accepted: %s", text);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return doc == NULL;
}

TEST(valid_documents_build_the_tree)
{
    const struct json_node *o, *a;

    CHECK(parse(" {\"a\": [1, -2, 3.5, \"x\\ty\", true, false, null, {}, []], \"b\": {\"c\": "
                "\"\"}} ") == 0);
    CHECK(doc != NULL && doc->type == JSON_OBJECT && doc->u.object.n == 2);
    a = json_get(doc, "a");
    CHECK(a != NULL && a->type == JSON_ARRAY && a->u.array.n == 9);
    if (a == NULL || a->u.array.n != 9)
        return;
    CHECK(a->u.array.items[0]->type == JSON_INT && a->u.array.items[0]->u.integer == 1);
    CHECK(a->u.array.items[1]->type == JSON_INT && a->u.array.items[1]->u.integer == -2);
    CHECK(a->u.array.items[2]->type == JSON_NUMBER &&
          strcmp(a->u.array.items[2]->u.number.text, "3.5") == 0);
    CHECK(a->u.array.items[3]->type == JSON_STRING &&
          strcmp(a->u.array.items[3]->u.string.s, "x\ty") == 0 &&
          a->u.array.items[3]->u.string.len == 3);
    CHECK(a->u.array.items[4]->type == JSON_BOOL && a->u.array.items[4]->u.boolean);
    CHECK(a->u.array.items[5]->type == JSON_BOOL && !a->u.array.items[5]->u.boolean);
    CHECK(a->u.array.items[6]->type == JSON_NULL);
    CHECK(a->u.array.items[7]->type == JSON_OBJECT && a->u.array.items[7]->u.object.n == 0);
    CHECK(a->u.array.items[8]->type == JSON_ARRAY && a->u.array.items[8]->u.array.n == 0);
    o = json_get(doc, "b");
    CHECK(o != NULL && json_get(o, "c") != NULL && json_get(o, "c")->u.string.len == 0);
    CHECK(json_get(doc, "missing") == NULL && json_get(a, "a") == NULL &&
          json_get(NULL, "a") == NULL);
    CHECK(parse("\"top\"") == 0 && doc->type == JSON_STRING);
    CHECK(parse("0") == 0 && doc->type == JSON_INT && doc->u.integer == 0);
}

TEST(valid_utf8_and_escapes_decode)
{
    /* é, a paired surrogate (U+1F600), U+10FFFF, and the escapes. */
    CHECK(parse("[\"\xc3\xa9\", \"\\ud83d\\ude00\", \"\\uDBFF\\uDFFF\", "
                "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]") == 0);
    if (doc == NULL)
        return;
    CHECK(strcmp(doc->u.array.items[0]->u.string.s, "\xc3\xa9") == 0);
    CHECK(strcmp(doc->u.array.items[1]->u.string.s, "\xf0\x9f\x98\x80") == 0);
    CHECK(strcmp(doc->u.array.items[2]->u.string.s, "\xf4\x8f\xbf\xbf") == 0);
    CHECK(strcmp(doc->u.array.items[3]->u.string.s, "\"\\/\b\f\n\r\t") == 0);
}

TEST(malformed_documents_are_refused)
{
    static const char *const bad[] = {
        "",           "   ",        "{",       "[1,",   "{\"a\":",   "{\"a\" 1}",   "[1] x",
        "[1] [2]",    "{\"a\":1,}", "[01]",    "[+1]",  "[.5]",      "[1.]",        "[\"abc]",
        "['a']",      "{a:1}",      "[tru]",   "[nul]", "[\"\\x\"]", "[\"\\u12\"]", "[\"\\u12g4\"]",
        "[\"a\tb\"]", "[\"a\nb\"]", "{\"a\"}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(refused(bad[i], 0, "malformed JSON"));
    /* The message is one line. */
    CHECK(parse("[1] x") < 0 && strchr(err.msg, '\n') == NULL);
}

TEST(invalid_utf8_in_strings_is_refused)
{
    /* Lone continuation, truncated sequences, overlongs, UTF-16 surrogates
     * encoded in UTF-8, code points above U+10FFFF, bytes never valid. */
    static const char *const bad[] = {
        "[\"\x80\"]",
        "[\"\xc3\"]",
        "[\"\xe2\x82\"]",
        "[\"\xc0\xaf\"]",
        "[\"\xc1\xbf\"]",
        "[\"\xe0\x80\xaf\"]",
        "[\"\xf0\x80\x80\xaf\"]",
        "[\"\xed\xa0\x80\"]",
        "[\"\xed\xbf\xbf\"]",
        "[\"\xf4\x90\x80\x80\"]",
        "[\"\xf5\x80\x80\x80\"]",
        "[\"\xf8\x88\x80\x80\x80\"]",
        "[\"\xfe\"]",
        "[\"\xff\"]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(refused(bad[i], 0, ""));
    /* The overlong slash, the encoded surrogate and the code point above
     * U+10FFFF pass yajl's own check: json.c names them. */
    CHECK(refused("{\"k\": \"\xc0\xaf\"}", 0, "k: string is not valid UTF-8"));
    CHECK(refused("{\"k\": [\"\xed\xa0\x80\"]}", 0, "k[0]: string is not valid UTF-8"));
    CHECK(refused("[\"\xf4\x90\x80\x80\"]", 0, "[0]: string is not valid UTF-8"));
    CHECK(refused("{\"\xc0\xaf\": 1}", 0, "string is not valid UTF-8"));
}

TEST(unpaired_surrogate_escapes_are_refused)
{
    /* yajl turns a lone high surrogate into "?" and a high one followed by
     * anything but a low one into a wrong code point. */
    CHECK(refused("{\"k\": \"\\ud800\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\ud800x\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\ud800\\u0041\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\ud800\\ud800\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\ud800\\\\udc00\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\udc00\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"k\": \"\\uDFFF\\uD800\"}", 0, "k: unpaired UTF-16 surrogate"));
    CHECK(refused("{\"\\ud800\": 1}", 0, "unpaired UTF-16 surrogate"));
    CHECK(refused("[\"ok\", \"\\\\\", {\"a\": [\"x\\uDBFF\"]}]", 0, "[2].a[0]: unpaired"));
    /* Text that only looks like an escape is not one. */
    CHECK(parse("[\"\\\\ud800\", \"\\\\\\ud83d\\ude00\"]") == 0);
}

TEST(duplicate_keys_are_refused_with_their_path)
{
    CHECK(refused("{\"a\": 1, \"a\": 2}", 0, "a: duplicate key"));
    CHECK(refused("{\"a\": {\"b\": [0, {\"c\": 1, \"d\": 2, \"c\": 3}]}}", 0,
                  "a.b[1].c: duplicate key"));
    /* Keys from the document are shown escaped in the path. */
    CHECK(refused("{\"\\u001b[31m\": 1, \"\\u001b[31m\": 2}", 0, "\\x1b[31m: duplicate key"));
    CHECK(strchr(err.msg, 0x1b) == NULL);
    /* The same key in sibling objects is fine. */
    CHECK(parse("[{\"a\": 1}, {\"a\": 2}]") == 0);
}

TEST(nul_is_refused_in_strings_and_keys)
{
    CHECK(refused("{\"k\": \"a\\u0000b\"}", 0, "k: string contains a NUL byte"));
    CHECK(refused("{\"k\\u0000x\": 1}", 0, "string contains a NUL byte"));
    CHECK(refused("[\"\\u0000\"]", 0, "[0]: string contains a NUL byte"));
    /* A raw NUL byte is not JSON at all. */
    CHECK(refused("[\"a\0b\"]", 7, ""));
    CHECK(refused("[1]\0", 4, "malformed"));
}

TEST(size_cap)
{
    const struct json_limits lim = {
        .max_bytes = 8, .max_depth = 4, .max_nodes = 16, .max_string = 16, .max_members = 4};
    char *big;

    CHECK(parse_n("[1,2,33]", 8, &lim) == 0);
    CHECK(parse_n("[1,2,333]", 9, &lim) < 0 && strstr(err.msg, "the limit is 8") != NULL);
    /* The config limit: 1 MiB. */
    big = malloc((1 << 20) + 2);
    if (big == NULL)
        return;
    memset(big, ' ', (1 << 20) + 1);
    big[0] = '0';
    CHECK(parse_n(big, 1 << 20, NULL) == 0);
    CHECK(parse_n(big, (1 << 20) + 1, NULL) < 0 && strstr(err.msg, "limit") != NULL);
    free(big);
}

/* n copies of c then n copies of d. */
static char *nest(size_t n, char c, char d)
{
    char *s = malloc(2 * n + 1);

    if (s != NULL) {
        memset(s, c, n);
        memset(s + n, d, n);
        s[2 * n] = '\0';
    }
    return s;
}

TEST(depth_cap)
{
    char *s;
    struct timespec t0, t1;

    s = nest(json_limits_config.max_depth, '[', ']');
    CHECK(s != NULL && parse(s) == 0);
    free(s);
    s = nest(json_limits_config.max_depth + 1, '[', ']');
    CHECK(s != NULL && refused(s, 0, "nested too deeply"));
    free(s);
    /* 100k levels: refused at the cap, quickly, without deep recursion. */
    s = nest(100000, '[', ']');
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(s != NULL && refused(s, 0, "nested too deeply"));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(t1.tv_sec - t0.tv_sec < 2);
    free(s);
    s = malloc(100000 * 5 + 1);
    if (s != NULL) {
        for (size_t i = 0; i < 100000; i++)
            memcpy(s + 5 * i, "{\"a\":", 5);
        s[100000 * 5] = '\0';
        CHECK(refused(s, 0, "nested too deeply"));
        CHECK(strstr(err.msg, "a.a.a") != NULL);
    }
    free(s);
}

TEST(node_cap)
{
    const struct json_limits lim = {
        .max_bytes = 1024, .max_depth = 4, .max_nodes = 4, .max_string = 16, .max_members = 16};

    CHECK(parse_n("[1,2,3]", 0, &lim) == 0);
    CHECK(parse_n("[1,2,3,4]", 0, &lim) < 0 && strstr(err.msg, "[3]: too many values") != NULL);
    CHECK(parse_n("{\"a\":{\"b\":{\"c\":1}}}", 0, &lim) == 0);
    CHECK(parse_n("{\"a\":{\"b\":{\"c\":[1]}}}", 0, &lim) < 0 &&
          strstr(err.msg, "too many values") != NULL);
}

TEST(string_cap)
{
    const struct json_limits lim = {
        .max_bytes = 1024, .max_depth = 4, .max_nodes = 16, .max_string = 4, .max_members = 16};

    CHECK(parse_n("[\"abcd\"]", 0, &lim) == 0);
    CHECK(parse_n("[\"abcde\"]", 0, &lim) < 0 &&
          strstr(err.msg, "[0]: string is too long") != NULL);
    /* Counted in decoded bytes: é is two. */
    CHECK(parse_n("[\"\\u00e9\\u00e9\"]", 0, &lim) == 0);
    CHECK(parse_n("[\"\\u00e9\\u00e9a\"]", 0, &lim) < 0);
    CHECK(parse_n("{\"abcd\":1}", 0, &lim) == 0);
    CHECK(parse_n("{\"abcde\":1}", 0, &lim) < 0 && strstr(err.msg, "string is too long") != NULL);
}

TEST(member_cap)
{
    const struct json_limits lim = {
        .max_bytes = 1024, .max_depth = 4, .max_nodes = 64, .max_string = 16, .max_members = 3};

    CHECK(parse_n("{\"x\":{\"a\":1,\"b\":2,\"c\":3}}", 0, &lim) == 0);
    CHECK(parse_n("{\"x\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4}}", 0, &lim) < 0 &&
          strstr(err.msg, "x: object has too many members") != NULL);
    /* Arrays are bounded by the node cap, not the member cap. */
    CHECK(parse_n("[1,2,3,4,5]", 0, &lim) == 0);
}

TEST(numbers_beyond_int64_stay_text)
{
    CHECK(parse("[9223372036854775807, -9223372036854775808, 9223372036854775808, "
                "-9223372036854775809, 18446744073709551616, 1e3, -0.0, 1E-2]") == 0);
    if (doc == NULL)
        return;
    CHECK(doc->u.array.items[0]->type == JSON_INT && doc->u.array.items[0]->u.integer == INT64_MAX);
    CHECK(doc->u.array.items[1]->type == JSON_INT && doc->u.array.items[1]->u.integer == INT64_MIN);
    for (size_t i = 2; i < 8; i++)
        CHECK(doc->u.array.items[i]->type == JSON_NUMBER);
    CHECK(strcmp(doc->u.array.items[2]->u.number.text, "9223372036854775808") == 0);
    CHECK(strcmp(doc->u.array.items[3]->u.number.text, "-9223372036854775809") == 0);
    CHECK(strcmp(doc->u.array.items[5]->u.number.text, "1e3") == 0);
    /* A number too long to be meant is refused, not rounded. */
    CHECK(refused("{\"n\": 1234567890123456789012345678901234567890123456789012345678901234}", 0,
                  "n: number is too long"));
}

TEST(type_names)
{
    CHECK(strcmp(json_type_name(JSON_INT), "integer") == 0);
    CHECK(strcmp(json_type_name(JSON_NUMBER), "number") == 0);
    CHECK(strcmp(json_type_name(JSON_OBJECT), "object") == 0);
    CHECK(strcmp(json_type_name((enum json_type)99), "?") == 0);
}

/* Write with fn and return the document (NULL when the writer refused). */
static char *written(void (*fn)(struct json_writer *))
{
    struct json_writer *w = json_writer_new(false);
    char *out = NULL;

    err = (struct rr_error){0};
    if (w == NULL)
        return NULL;
    json_w_begin_array(w);
    fn(w);
    json_w_end_array(w);
    if (json_writer_finish(w, &out, NULL, &err) < 0)
        out = NULL;
    json_writer_free(w);
    return out;
}

static void w_bytes_mixed(struct json_writer *w)
{
    json_w_bytes(w, "a\xff\\b\xc3\xa9\xc0\xaf\xed\xa0\x80", 11);
}

static void w_bytes_empty(struct json_writer *w)
{
    json_w_bytes(w, "", 0);
}

static void w_bad_string(struct json_writer *w)
{
    json_w_string(w, "a\xff");
}

static void w_overlong_string(struct json_writer *w)
{
    json_w_string(w, "\xc0\xaf");
}

static void w_surrogate_string(struct json_writer *w)
{
    json_w_string(w, "\xed\xa0\x80");
}

static void w_bad_key(struct json_writer *w)
{
    json_w_begin_object(w);
    json_w_key(w, "\xf5\x80\x80\x80");
    json_w_null(w);
    json_w_end_object(w);
}

static void w_numbers(struct json_writer *w)
{
    json_w_uint(w, UINT64_MAX);
    json_w_int(w, INT64_MIN);
    json_w_int(w, INT64_MAX);
    json_w_bool(w, true);
    json_w_null(w);
    json_w_string(w, "\xc3\xa9\n\"");
}

static void w_unbalanced(struct json_writer *w)
{
    json_w_end_object(w);
}

TEST(writer_bytes_escape_invalid_utf8_and_backslashes)
{
    char *out = written(w_bytes_mixed);

    /* Invalid bytes become the four characters \xHH (a JSON-escaped
     * backslash), a literal backslash becomes two, UTF-8 passes. */
    CHECK(out != NULL &&
          strcmp(out, "[\"a\\\\xff\\\\\\\\b\xc3\xa9\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\"]") == 0);
    if (out != NULL) {
        /* Parsed back, the text is valid UTF-8 and the escaping is
         * unambiguous: the backslash of the input is doubled. */
        CHECK(parse(out) == 0 && strcmp(doc->u.array.items[0]->u.string.s,
                                        "a\\xff\\\\b\xc3\xa9\\xc0\\xaf\\xed\\xa0\\x80") == 0);
    }
    free(out);
    out = written(w_bytes_empty);
    CHECK(out != NULL && strcmp(out, "[\"\"]") == 0);
    free(out);
}

TEST(writer_string_refuses_invalid_utf8)
{
    char *out;

    CHECK(written(w_bad_string) == NULL && strstr(err.msg, "invalid string") != NULL);
    CHECK(written(w_overlong_string) == NULL);
    CHECK(written(w_surrogate_string) == NULL);
    CHECK(written(w_bad_key) == NULL);
    CHECK(written(w_unbalanced) == NULL);
    out = written(w_numbers);
    CHECK(out != NULL &&
          strcmp(out, "[18446744073709551615,-9223372036854775808,9223372036854775807,true,null,"
                      "\"\xc3\xa9\\n\\\"\"]") == 0);
    free(out);
}

TEST(utf8_validator)
{
    CHECK(json_utf8_valid("", 0));
    CHECK(json_utf8_valid("abc\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 12));
    CHECK(json_utf8_valid("\xef\xbf\xbf\xf4\x8f\xbf\xbf", 7));
    CHECK(!json_utf8_valid("\xc3", 1));
    CHECK(!json_utf8_valid("\xe2\x82", 2));
    CHECK(!json_utf8_valid("\xc0\x80", 2));
    CHECK(!json_utf8_valid("\xe0\x9f\xbf", 3));
    CHECK(!json_utf8_valid("\xf0\x8f\xbf\xbf", 4));
    CHECK(!json_utf8_valid("\xed\xa0\x80", 3));
    CHECK(!json_utf8_valid("\xf4\x90\x80\x80", 4));
    CHECK(!json_utf8_valid("\xc3\x28", 2));
    CHECK(!json_utf8_valid("\x80", 1));
}

TEST(parse_file_caps_and_refusals)
{
    char dir[] = "/tmp/revrun-test-json.XXXXXX";
    const struct json_limits lim = {
        .max_bytes = 16, .max_depth = 4, .max_nodes = 16, .max_string = 16, .max_members = 4};
    int dfd, fd;

    if (!CHECK(mkdtemp(dir) != NULL))
        return;
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    fd = openat(dfd, "ok.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0 && write(fd, "{\"a\": [1, 2]}", 13) == 13);
    close(fd);
    fd = openat(dfd, "big.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0 && write(fd, "[1, 2, 3, 4, 5, 6, 7]", 21) == 21);
    close(fd);
    CHECK(symlinkat("ok.json", dfd, "link.json") == 0);
    CHECK(mkdirat(dfd, "dir.json", 0700) == 0);
    json_free(doc);
    doc = NULL;
    CHECK(json_parse_file(dfd, "ok.json", &lim, &doc, &err) == 0 && doc != NULL);
    json_free(doc);
    doc = NULL;
    /* The size is checked before reading... */
    CHECK(json_parse_file(dfd, "big.json", &lim, &doc, &err) < 0 && doc == NULL &&
          strstr(err.msg, "21 bytes, the limit is 16") != NULL);
    /* ...and while reading: a /proc file says it has 0 bytes. */
    CHECK(json_parse_file(AT_FDCWD, "/proc/self/status", &lim, &doc, &err) < 0 &&
          strstr(err.msg, "larger than the limit of 16 bytes") != NULL);
    CHECK(json_parse_file(dfd, "link.json", &lim, &doc, &err) < 0);
    CHECK(json_parse_file(dfd, "dir.json", &lim, &doc, &err) < 0 &&
          strstr(err.msg, "not a regular file") != NULL);
    CHECK(json_parse_file(AT_FDCWD, "/dev/null", &lim, &doc, &err) < 0 &&
          strstr(err.msg, "not a regular file") != NULL);
    CHECK(json_parse_file(dfd, "missing.json", &lim, &doc, &err) < 0);
    fd = openat(dfd, "bad.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0 && write(fd, "{\"a\":1,\"a\":1}", 13) == 13);
    close(fd);
    CHECK(json_parse_file(dfd, "bad.json", &lim, &doc, &err) < 0 &&
          strstr(err.msg, "bad.json: a: duplicate key") != NULL);
    unlinkat(dfd, "ok.json", 0);
    unlinkat(dfd, "big.json", 0);
    unlinkat(dfd, "bad.json", 0);
    unlinkat(dfd, "link.json", 0);
    unlinkat(dfd, "dir.json", AT_REMOVEDIR);
    close(dfd);
    rmdir(dir);
}
