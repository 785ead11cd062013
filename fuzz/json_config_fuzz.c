/* libFuzzer harness for the config/JSON layer: arbitrary bytes go through
 * json_parse with the config limits and, when they parse, through
 * config_from_json, config_to_json and config_free. What it asserts beyond
 * "no crash, no leak, no UB" (the sanitizers):
 *   - a rejected document leaves an error message;
 *   - config_to_json output parses again, as JSON and as a config, and
 *     serialises to the same text (the round trip `revrun spec` and the
 *     config snapshot rely on). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(int cond, const char *what, const char *detail)
{
    if (!cond) {
        fprintf(stderr, "json_config_fuzz: %s\n%s\n", what, detail ? detail : "");
        abort();
    }
}

/* Text -> config -> text; the caller frees *out. */
static int reserialise(const char *text, size_t len, char **out, struct rr_error *err)
{
    struct json_node *root = NULL;
    struct rr_config cfg;
    int r;

    if (json_parse(text, len, &json_limits_config, &root, err) < 0)
        return -1;
    r = config_from_json(root, &cfg, err);
    json_free(root);
    if (r < 0)
        return -1;
    r = config_to_json(&cfg, out, err);
    config_free(&cfg);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rr_error err = {0};
    struct json_node *root = NULL;
    struct rr_config cfg;
    char *first = NULL, *second = NULL;

    if (json_parse((const char *)data, size, &json_limits_config, &root, &err) < 0) {
        must(err.msg[0] != '\0', "json_parse failed without a message", NULL);
        return 0;
    }
    must(root != NULL, "json_parse succeeded without a tree", NULL);
    if (config_from_json(root, &cfg, &err) < 0) {
        must(err.msg[0] != '\0', "config_from_json failed without a message", NULL);
        json_free(root);
        return 0;
    }
    json_free(root);
    if (config_to_json(&cfg, &first, &err) == 0) {
        must(reserialise(first, strlen(first), &second, &err) == 0,
             "config_to_json wrote text that does not load again", err.msg);
        must(strcmp(first, second) == 0, "the round trip changed the config", first);
    }
    free(first);
    free(second);
    config_free(&cfg);
    return 0;
}
