/* The activity record's lines (runtime/container/activity.c) and their
 * summary (runtime/jobs/activity_summary.c): escaped, cut to the caps with
 * what was cut counted, and read back as hostile text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "common/escape.h"
#include "runtime/container/activity.h"
#include "runtime/jobs/activity_summary.h"
#include "tests/tap.h"

static struct json_node *parse_line(const char *line, size_t len)
{
    struct json_node *n = NULL;
    struct rr_error err;

    if (len == 0 || line[len - 1] != '\n' || memchr(line, '\n', len - 1) != NULL)
        return NULL;
    if (json_parse(line, len, &json_limits_config, &n, &err) < 0)
        return NULL;
    return n;
}

static struct act_exec exec_of(struct act_text *argv, size_t n)
{
    return (struct act_exec){.pid = 5, .ppid = 1, .found = 1, .cwd = {"/workspace", 10},
                             .path = {"/bin/true", 9}, .argv = argv, .n_argv = n, .argc = n};
}

static const char *arg(const struct json_node *o, size_t i)
{
    const struct json_node *a = json_get(o, "argv");

    return a != NULL && i < a->u.array.n ? a->u.array.items[i]->u.string.s : NULL;
}

static uint64_t num(const struct json_node *o, const char *key)
{
    const struct json_node *n = json_get(o, key);

    return n != NULL && n->type == JSON_INT ? (uint64_t)n->u.integer : 0;
}

TEST(hostile_arguments_are_escaped)
{
    struct act_text argv[] = {{"\033]0;t\007", 6}, {"::set-output name=a::b", 22},
                              {"x ##vso[task]", 13}, {"\xff\xfe", 2}, {"a\0b", 3}};
    struct act_exec e = exec_of(argv, 5);
    char *line = NULL;
    size_t len;
    struct json_node *o;

    CHECK(act_format_exec(&e, 1, &line, &len) == 0);
    o = parse_line(line, len);
    CHECK(o != NULL);
    if (o != NULL) {
        CHECK(strcmp(arg(o, 0), "\\x1b]0;t\\x07") == 0);
        CHECK(strcmp(arg(o, 1), "\\x3a:set-output name=a::b") == 0);
        CHECK(strcmp(arg(o, 2), "x \\x23#vso[task]") == 0);
        CHECK(strcmp(arg(o, 3), "\\xff\\xfe") == 0);
        CHECK(strcmp(arg(o, 4), "a\\x00b") == 0);
        CHECK(json_get(o, "bytesCut") == NULL);
        for (size_t i = 0; i < 5; i++)
            CHECK(rr_is_escaped(arg(o, i), strlen(arg(o, i))));
    }
    CHECK(strchr(line, '\033') == NULL && strstr(line, "##vso") == NULL);
    json_free(o);
    free(line);
}

TEST(a_record_stays_under_its_cap_and_counts_the_cut)
{
    static char big[ACT_MAX_ARG_BYTES];
    struct act_text argv[ACT_MAX_ARGS];
    struct act_exec e;
    char *line = NULL;
    size_t len;
    struct json_node *o;

    memset(big, '\033', sizeof(big)); /* four bytes each once escaped */
    for (size_t i = 0; i < ACT_MAX_ARGS; i++)
        argv[i] = (struct act_text){big, sizeof(big)};
    e = exec_of(argv, ACT_MAX_ARGS);
    e.argc = 100;
    e.args_cut = 100 - ACT_MAX_ARGS;
    CHECK(act_format_exec(&e, 7, &line, &len) == 0);
    CHECK(len <= ACT_MAX_RECORD_BYTES);
    o = parse_line(line, len);
    CHECK(o != NULL);
    if (o != NULL) {
        const struct json_node *a = json_get(o, "argv");
        size_t shown = a->u.array.n;
        /* what is not shown is counted: the arguments left out, and the
         * bytes of the one cut short */
        CHECK(shown >= 1 && shown < ACT_MAX_ARGS);
        CHECK(num(o, "argsCut") == 100 - shown);
        CHECK(num(o, "bytesCut") > 0 && num(o, "bytesCut") < shown * sizeof(big));
        CHECK(num(o, "argc") == 100);
    }
    json_free(o);
    free(line);
}

TEST(a_request_has_no_query_and_an_escaped_path)
{
    struct act_request r = {.method = {"POST", 4}, .path = {"/v1/\033[2Jm", 9}, .status = 200,
                            .bytes_up = 10, .bytes_down = 20, .ms = 3, .credential = true};
    char *line = NULL;
    size_t len;
    struct json_node *o;

    CHECK(act_format_request(&r, &line, &len) == 0);
    o = parse_line(line, len);
    CHECK(o != NULL);
    if (o != NULL) {
        CHECK(strcmp(json_get(o, "path")->u.string.s, "/v1/\\x1b[2Jm") == 0);
        CHECK(num(o, "status") == 200 && num(o, "bytesDown") == 20);
        CHECK(json_get(o, "credential")->u.boolean);
    }
    json_free(o);
    free(line);
}

TEST(the_summary_counts_and_shows_only_escaped_text)
{
    const char *text =
        "{\"type\":\"activity\",\"maxRecords\":20000,\"maxBytes\":8388608}\n"
        "{\"type\":\"exec\",\"found\":true,\"path\":\"/usr/bin/git\",\"argv\":[\"git\"]}\n"
        "{\"type\":\"exec\",\"found\":true,\"path\":\"/usr/bin/git\",\"argv\":[\"git\"]}\n"
        "{\"type\":\"exec\",\"found\":false,\"path\":\"/usr/local/bin/git\",\"argv\":[\"git\"]}\n"
        "{\"type\":\"exec\",\"found\":true,\"nested\":1,\"path\":\"\\u001b[31mx\",\"argv\":[]}\n"
        "not json at all\n"
        "{\"type\":\"request\",\"method\":\"POST\",\"path\":\"/v1/messages\",\"status\":200}\n"
        "{\"type\":\"end\",\"capped\":true,\"more\":{\"execs\":5,\"requests\":1}}\n";
    struct act_summary s;
    struct rr_error err;
    char *out = NULL;
    size_t outlen = 0;
    FILE *f;

    CHECK(act_summary_load(text, strlen(text), &s, &err) == 0);
    CHECK(s.execs == 3 && s.not_found == 1 && s.nested == 1 && s.requests == 1);
    CHECK(s.bad_lines == 1 && s.capped && s.more_execs == 5 && s.more_requests == 1);
    CHECK(s.programs.n == 2 && strcmp(s.programs.v[0].key, "/usr/bin/git") == 0 &&
          s.programs.v[0].n == 2);
    /* a raw escape byte in the file (not revrun's own writing) is escaped */
    CHECK(strcmp(s.programs.v[1].key, "\\x1b[31mx") == 0);
    CHECK(s.paths.n == 1 && strcmp(s.paths.v[0].key, "POST /v1/messages 200") == 0);
    f = open_memstream(&out, &outlen);
    act_summary_text(f, &s);
    fclose(f);
    CHECK(strchr(out, '\033') == NULL);
    CHECK(strstr(out, "5 more execs") != NULL);
    free(out);
    act_summary_free(&s);
}

TEST(escaped_form_is_recognised)
{
    CHECK(rr_is_escaped("plain text", 10));
    CHECK(rr_is_escaped("\\x1b[31m \\\\ \\x3a:x", 17));
    CHECK(!rr_is_escaped("\033[31m", 5));
    CHECK(!rr_is_escaped("::set-output", 12));
    CHECK(!rr_is_escaped("a ##vso[x]", 10));
    CHECK(!rr_is_escaped("\xff", 1));
}
