/* bundle/state.c: container IDs and the state files read back as untrusted
 * text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/state.h"
#include "tests/tap.h"

static struct rr_error err;

TEST(container_ids)
{
    static const char *const good[] = {
        "a",           "Z",    "0",
        "abc-DEF_1.2", "a..b", "a-",
        "9_",          "a.",   "0123456789012345678901234567890123456789012345678901234567890123"};
    static const char *const bad[] = {
        "",
        ".",
        "..",
        "-a",
        "_a",
        ".a",
        "a/b",
        "/a",
        "a b",
        "a\n",
        "a\\b",
        "a:b",
        "a\x1b",
        "caf\xc3\xa9",
        "a*",
        "a%",
        "01234567890123456789012345678901234567890123456789012345678901234",
    };

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (!CHECK(rr_id_valid(good[i])))
            tap_note("refused %s", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (!CHECK(!rr_id_valid(bad[i])))
            tap_note("accepted %s", bad[i]);
    CHECK(strlen(good[sizeof(good) / sizeof(good[0]) - 1]) == RR_ID_MAX);
}

static struct rr_state sample(void)
{
    return (struct rr_state){
        .id = "review-1",
        .bundle = (char *)"/b",
        .lower = (char *)"/src/\xc3\xa9",
        .store = (char *)"/s",
        .backend = (char *)"native",
        .created = (char *)"2026-01-01T00:00:00.000000000Z",
        .pid = 1234,
        .pid_start = 99,
        .monitor_pid = 1233,
        .monitor_start = 98,
        .rootless = true,
        .owner = 4294967294u,
        .cgroup = (char *)"revrun/review-1",
        .cgroup_version = (char *)"v2",
    };
}

TEST(state_round_trips)
{
    struct rr_state in = sample(), out;
    char *text = NULL;

    CHECK(state_to_json(&in, &text, &err) == 0);
    if (text == NULL)
        return;
    CHECK(state_from_json(text, strlen(text), &out, &err) == 0);
    CHECK(strcmp(out.id, "review-1") == 0 && strcmp(out.lower, in.lower) == 0 &&
          strcmp(out.backend, "native") == 0 && strcmp(out.cgroup_version, "v2") == 0);
    CHECK(out.pid == 1234 && out.pid_start == 99 && out.monitor_pid == 1233 &&
          out.monitor_start == 98 && out.rootless && out.owner == 4294967294u);
    state_free(&out);
    free(text);
}

/* sample() as JSON with one member replaced by raw JSON text. */
static int load_with(const char *key, const char *value, struct rr_state *out)
{
    char text[1024];
    struct rr_state in = sample();
    char *json = NULL, *at, *end;

    if (state_to_json(&in, &json, &err) < 0)
        return -2;
    snprintf(text, sizeof(text), "%s", json);
    free(json);
    char needle[64];
    snprintf(needle, sizeof(needle), "\"%s\":", key);
    at = strstr(text, needle);
    if (at == NULL)
        return -2;
    at += strlen(needle);
    end = at;
    if (*end == '"')
        end = strchr(end + 1, '"') + 1;
    else
        end += strcspn(end, ",}");
    memmove(at + strlen(value), end, strlen(end) + 1);
    memcpy(at, value, strlen(value));
    err = (struct rr_error){0};
    return state_from_json(text, strlen(text), out, &err);
}

TEST(state_fields_are_checked)
{
    static const struct {
        const char *key, *value, *want;
    } bad[] = {
        {"id", "\"../x\"", "state.json: id: not a container ID"},
        {"id", "\"\"", "state.json: id: not a container ID"},
        {"id", "\"a\\u001b\"", "state.json: id: not a container ID"},
        {"id", "\"0123456789012345678901234567890123456789012345678901234567890123x\"",
         "state.json: id: not a container ID"},
        {"id", "1", "state.json: id: expected string"},
        {"pid", "\"1\"", "state.json: pid: missing or not an integer"},
        {"pid", "-1", "out of range"},
        {"pid", "4294967297", "out of range"},
        {"monitorPid", "-1", "out of range"},
        {"pidStart", "-1", "out of range"},
        {"monitorStart", "-5", "out of range"},
        {"owner", "4294967296", "out of range"},
        {"owner", "-1", "out of range"},
        {"owner", "1.5", "owner: missing or not an integer"},
        {"rootless", "1", "rootless: expected boolean"},
        {"bundle", "[]", "bundle: expected string"},
    };
    struct rr_state out;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int r = load_with(bad[i].key, bad[i].value, &out);
        if (!CHECK(r == -1 && strstr(err.msg, bad[i].want) != NULL))
            tap_note("%s = %s: r %d, \"%s\"", bad[i].key, bad[i].value, r, err.msg);
        if (r == 0)
            state_free(&out);
    }
    /* pid 0: recorded before the process existed. */
    CHECK(load_with("pid", "0", &out) == 0 && out.pid == 0);
    state_free(&out);
    CHECK(load_with("monitorPid", "0", &out) == 0);
    state_free(&out);
    /* An error is always reported with a message of its own, never a stale one. */
    strcpy(err.msg, "stale");
    CHECK(state_from_json("{\"id\": \"../x\"}", 14, &out, &err) < 0 &&
          strstr(err.msg, "stale") == NULL);
    CHECK(state_from_json("[1]", 3, &out, &err) < 0 && strstr(err.msg, "state.json") != NULL);
    CHECK(state_from_json("{\"id\":", 6, &out, &err) < 0 && strstr(err.msg, "malformed") != NULL);
}

TEST(state_limits)
{
    /* above the 512 KiB an engine's annotations may take */
    size_t n = 520 * 1024;
    char *big = malloc(n);
    struct rr_state out;

    if (big == NULL)
        return;
    memset(big, ' ', n);
    memcpy(big, "{}", 2);
    CHECK(state_from_json(big, n, &out, &err) < 0 && strstr(err.msg, "limit") != NULL);
    free(big);
    CHECK(state_from_json("{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}", 26, &out, &err) < 0 &&
          strstr(err.msg, "nested too deeply") != NULL);
}

TEST(state_rootfs_and_annotations_round_trip)
{
    struct rr_state in = {.id = "a1", .bundle = "/b", .created = "t", .rootfs = "/b/rootfs"};
    struct rr_state out;
    char *json = NULL;

    CHECK(state_add_annotation(&in, "io.example/k", "v\"\n") == 0);
    CHECK(state_to_json(&in, &json, &err) == 0);
    CHECK(state_from_json(json, strlen(json), &out, &err) == 0);
    CHECK(strcmp(out.rootfs, "/b/rootfs") == 0);
    CHECK(out.n_annotations == 1 && strcmp(out.annotations[0], "io.example/k") == 0 &&
          strcmp(out.annotations[1], "v\"\n") == 0);
    state_free(&out);
    free(json);
    for (size_t i = 0; i < 2 * in.n_annotations; i++)
        free(in.annotations[i]);
    free(in.annotations);
    /* an annotation that is not a string is refused */
    const char *bad = "{\"id\":\"a\",\"pid\":0,\"pidStart\":0,\"monitorPid\":0,"
                      "\"monitorStart\":0,\"owner\":0,\"annotations\":{\"k\":1}}";
    CHECK(state_from_json(bad, strlen(bad), &out, &err) < 0 &&
          strstr(err.msg, "annotations") != NULL);
}

TEST(exit_record_round_trips_and_escapes_its_error)
{
    struct rr_exit in = {.wait_status = 9,
                         .timed_out = true,
                         .oom_killed = false,
                         .finished = (char *)"2026-01-01T00:00:00Z",
                         .error = (char *)"exec \xff\\ failed"};
    struct rr_exit out;
    char *text = NULL;

    CHECK(exit_to_json(&in, &text, &err) == 0);
    if (text == NULL)
        return;
    CHECK(exit_from_json(text, strlen(text), &out, &err) == 0);
    CHECK(out.wait_status == 9 && out.timed_out && !out.oom_killed &&
          strcmp(out.finished, in.finished) == 0);
    /* The error text was arbitrary bytes: written with json_w_bytes. */
    CHECK(out.error != NULL && strcmp(out.error, "exec \\xff\\\\ failed") == 0);
    exit_free(&out);
    free(text);
    CHECK(exit_from_json("{\"timedOut\": true}", 18, &out, &err) < 0 &&
          strstr(err.msg, "exit.json: waitStatus") != NULL);
    CHECK(exit_from_json("{\"waitStatus\": 0, \"error\": 5}", 29, &out, &err) < 0 &&
          strstr(err.msg, "exit.json: error: expected string") != NULL);
}

TEST(timestamps_are_rfc3339_utc)
{
    char buf[64];

    rr_now_rfc3339(buf, sizeof(buf));
    CHECK(strlen(buf) == 30 && buf[4] == '-' && buf[10] == 'T' && buf[19] == '.' && buf[29] == 'Z');
}
