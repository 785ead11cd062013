/* `revrun check --json`, for fleet monitoring: the same rows as the text
 * report, one object on stdout.
 *   {"ok": bool, "rootless": bool, "inContainer": bool, "bundle": PATH|null,
 *    "createFails": bool, "error": TEXT (when the check could not finish),
 *    "items": [{"status": "ok|warn|fail|info", "name", "detail",
 *               "cause" (a fail or warn with a known cause), "remedy"}],
 *    "liftAll": TEXT (the outer container's flags that lift every blocker)} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/json.h"
#include "runtime/check/check.h"
#include "runtime/container/log.h"

static void kv_text(struct json_writer *w, const char *key, const char *text)
{
    json_w_key(w, key);
    json_w_bytes(w, text, strlen(text));
}

static void item(struct json_writer *w, const struct check_report *r, const struct check_item *it)
{
    static const char *const tags[] = {"ok", "warn", "fail", "info"};
    char cause[512];

    json_w_begin_object(w);
    json_w_kv_string(w, "status", tags[it->status]);
    kv_text(w, "name", it->name);
    kv_text(w, "detail", it->detail);
    if ((it->status == CHECK_FAIL || it->status == CHECK_WARN) && it->causes != 0) {
        check_cause_text(&r->facts, it->causes, cause, sizeof(cause));
        kv_text(w, "cause", cause);
    }
    if (it->remedy[0] != '\0')
        kv_text(w, "remedy", it->remedy);
    json_w_end_object(w);
}

static void body(struct json_writer *w, const struct check_report *r, const char *bundle,
                 const struct rr_error *error)
{
    char text[2048];

    json_w_begin_object(w);
    json_w_kv_bool(w, "ok", error == NULL && !r->needed_missing && !r->create_failed);
    json_w_kv_bool(w, "rootless", r->rootless);
    json_w_kv_bool(w, "inContainer", r->facts.in_container);
    json_w_key(w, "bundle");
    if (bundle != NULL)
        json_w_bytes(w, bundle, strlen(bundle));
    else
        json_w_null(w);
    json_w_kv_bool(w, "createFails", r->create_failed);
    if (error != NULL)
        kv_text(w, "error", rr_error_text(error, text, sizeof(text)));
    json_w_key(w, "items");
    json_w_begin_array(w);
    for (size_t i = 0; i < r->n; i++)
        item(w, r, &r->items[i]);
    json_w_end_array(w);
    if (r->all_causes != 0) {
        check_remedies(&r->facts, r->all_causes, r->rootless, text, sizeof(text));
        kv_text(w, "liftAll", text);
    }
    json_w_end_object(w);
}

int check_print_json(const struct check_report *r, const char *bundle,
                     const struct rr_error *error)
{
    struct json_writer *w = json_writer_new(true);
    char *out = NULL;
    struct rr_error err;

    if (w == NULL) {
        log_msg(LOG_ERROR, "check: out of memory");
        return -1;
    }
    body(w, r, bundle, error);
    if (json_writer_finish(w, &out, NULL, &err) < 0) {
        json_writer_free(w);
        log_error(&err);
        return -1;
    }
    json_writer_free(w);
    printf("%s\n", out);
    free(out);
    return fflush(stdout) == 0 ? 0 : -1;
}
