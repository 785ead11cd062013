/* Agent presets (bundle/preset.c) and the spec flags (bundle/spec.c):
 * hostile preset text is refused with its path, the shipped presets parse,
 * a flag overrides the preset, and what comes out is config fields only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/preset.h"
#include "bundle/spec.h"
#include "tests/tap.h"

static struct rr_error err;

static int parse(const char *text, struct rr_preset *p)
{
    struct json_node *root = NULL;
    int r;

    if (json_parse(text, strlen(text), &json_limits_config, &root, &err) < 0)
        return -1;
    r = preset_from_json(root, p, &err);
    json_free(root);
    return r;
}

static bool refused(const char *text, const char *want)
{
    struct rr_preset p;

    if (parse(text, &p) == 0) {
        preset_free(&p);
        tap_note("accepted: %s", text);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return true;
}

TEST(a_minimal_preset_parses)
{
    struct rr_preset p;

    CHECK(parse("{\"name\": \"mine\"}", &p) == 0);
    CHECK(p.name && strcmp(p.name, "mine") == 0 && p.upstream == NULL && !p.nested_sandboxes);
    preset_free(&p);
}

TEST(unknown_keys_and_wrong_types_are_refused)
{
    CHECK(refused("{\"name\": \"x\", \"upstrem\": \"https://a\"}", "upstrem"));
    CHECK(refused("{\"name\": \"x\", \"mounts\": []}", "mounts"));
    CHECK(refused("{\"name\": \"x\", \"revrun\": {}}", "revrun"));
    CHECK(refused("{\"name\": \"x\", \"env\": \"A=1\"}", "env"));
    CHECK(refused("{\"name\": \"x\", \"nestedSandboxes\": \"yes\"}", "nestedSandboxes"));
    CHECK(refused("[]", "preset"));
    CHECK(refused("{}", "name"));
    CHECK(refused("{\"name\": \"x\", \"name\": \"y\"}", "name"));
}

TEST(values_a_config_would_refuse_are_refused)
{
    CHECK(refused("{\"name\": \"../x\"}", "name"));
    CHECK(refused("{\"name\": \"Claude\"}", "name"));
    CHECK(refused("{\"name\": \"x\", \"upstream\": \"http://api\"}", "https://"));
    CHECK(refused("{\"name\": \"x\", \"env\": [\"NOEQUALS\"]}", "env[0]"));
    CHECK(refused("{\"name\": \"x\", \"env\": [\"A-B=1\"]}", "env[0]"));
    CHECK(refused("{\"name\": \"x\", \"baseUrlEnv\": [\"A B\"]}", "baseUrlEnv[0]"));
    CHECK(refused("{\"name\": \"x\", \"dummyKeyEnv\": \"1X\"}", "dummyKeyEnv"));
    CHECK(refused("{\"name\": \"x\", \"allow\": [\"v1/\"]}", "allow[0]"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"../.bashrc\": \"\"}}", "homeFiles"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"/etc/passwd\": \"\"}}", "relative"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"a//b\": \"\"}}", "homeFiles"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"a/\": \"\"}}", "trailing"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"a\\u0001b\": \"\"}}", "control"));
    CHECK(refused("{\"name\": \"x\", \"homeFiles\": {\"a\": 1}}", "homeFiles.a"));
    CHECK(refused("{\"name\": \"x\", \"artifacts\": [\"/home/agent/x\"]}", "~/"));
    CHECK(refused("{\"name\": \"x\", \"artifacts\": [\"~/../x\"]}", "artifacts[0]"));
    CHECK(refused("{\"name\": \"x\", \"artifacts\": [\"~/\"]}", "artifacts[0]"));
}

TEST(caps_on_home_files_and_artifacts)
{
    char buf[16384];
    size_t n = (size_t)snprintf(buf, sizeof(buf), "{\"name\": \"x\", \"homeFiles\": {");

    for (int i = 0; i <= RR_HOME_FILES_MAX; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"f%d\": \"\"", i ? "," : "", i);
    snprintf(buf + n, sizeof(buf) - n, "}}");
    CHECK(refused(buf, "at most"));
    n = (size_t)snprintf(buf, sizeof(buf), "{\"name\": \"x\", \"artifacts\": [");
    for (int i = 0; i <= RR_ARTIFACTS_MAX; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"~/a%d\"", i ? "," : "", i);
    snprintf(buf + n, sizeof(buf) - n, "]}");
    CHECK(refused(buf, "at most"));
}

TEST(the_shipped_presets_parse)
{
    static const char *const names[] = {"agents/claude.json", "agents/codex.json",
                                        "agents/gemini.json"};

    for (size_t i = 0; i < 3; i++) {
        struct rr_preset p;
        if (!CHECK(preset_load(names[i], &p, &err) == 0)) {
            tap_note("%s: %s", names[i], err.msg);
            continue;
        }
        CHECK(p.upstream != NULL && p.base_url_env.n > 0 && p.dummy_key_env != NULL);
        preset_free(&p);
    }
}

TEST(a_preset_name_is_not_a_path)
{
    struct rr_preset p;

    CHECK(preset_load("no-such-agent", &p, &err) < 0 && strstr(err.msg, "no preset") != NULL);
    CHECK(preset_load("Bad_Name", &p, &err) < 0 && strstr(err.msg, "[a-z0-9-]") != NULL);
}

static const char *env_of(const struct rr_config *c, const char *name)
{
    size_t n = strlen(name);

    for (size_t i = 0; i < c->process.env.n; i++)
        if (strncmp(c->process.env.v[i], name, n) == 0 && c->process.env.v[i][n] == '=')
            return c->process.env.v[i] + n + 1;
    return NULL;
}

TEST(flags_override_the_preset_and_become_config_fields)
{
    struct rr_config c = {0};
    struct rr_preset p;
    struct spec_opts o = {0};

    CHECK(strv_push(&c.process.env, "PATH=/usr/bin") == 0);
    CHECK(parse("{\"name\": \"x\", \"upstream\": \"https://a.example\", \"header\": \"x-k\","
                "\"credentialEnv\": \"K\", \"dummyKeyEnv\": \"K\", \"baseUrlEnv\": [\"U1\", \"U2\"],"
                "\"env\": [\"A=1\", \"B=2\"], \"artifacts\": [\"~/.t\"],"
                "\"homeFiles\": {\".x/c\": \"v\"}}",
                &p) == 0);
    o.header = "x-other";
    CHECK(strv_push(&o.env, "A=9") == 0 && strv_push(&o.artifacts, "~/.u") == 0);
    CHECK(spec_apply(&c, &o, &p, &err) == 0);
    CHECK(c.revrun.egress.mode == RR_EGRESS_BROKER);
    CHECK(strcmp(c.revrun.egress.upstream, "https://a.example") == 0);
    CHECK(strcmp(c.revrun.egress.header, "x-other") == 0);
    CHECK(strcmp(c.revrun.egress.credential_env, "K") == 0);
    CHECK(c.revrun.egress.base_url_env.n == 2);
    CHECK(env_of(&c, "A") && strcmp(env_of(&c, "A"), "9") == 0);
    CHECK(env_of(&c, "B") && strcmp(env_of(&c, "B"), "2") == 0);
    CHECK(env_of(&c, "K") && strcmp(env_of(&c, "K"), SPEC_DUMMY_KEY) == 0);
    CHECK(c.revrun.artifacts.n == 2 && c.revrun.n_home_files == 1);
    /* a credential file replaces the preset's variable */
    o.credential_file = "/dev/null";
    CHECK(spec_apply(&c, &o, &p, &err) == 0 && c.revrun.egress.credential_env == NULL &&
          strcmp(c.revrun.egress.credential_file, "/dev/null") == 0);
    o.credential_env = "X";
    CHECK(spec_apply(&c, &o, &p, &err) < 0);
    spec_opts_free(&o);
    preset_free(&p);
    config_free(&c);
}

TEST(egress_flags_without_an_upstream_are_refused)
{
    struct rr_config c = {0};
    struct spec_opts o = {.credential_env = "K"};

    CHECK(spec_apply(&c, &o, NULL, &err) < 0 && strstr(err.msg, "--upstream") != NULL);
    o = (struct spec_opts){.upstream = "https://a.example"};
    CHECK(spec_apply(&c, &o, NULL, &err) < 0 && strstr(err.msg, "credential") != NULL);
    config_free(&c);
}

TEST(binds_and_the_agent_dir)
{
    struct rr_config c = {0};
    struct spec_opts o = {.agent_dir = "/usr/lib"};

    CHECK(strv_push(&c.process.env, "PATH=/usr/bin") == 0);
    CHECK(strv_push(&o.binds, "/usr/share:/data") == 0);
    CHECK(strv_push(&o.binds, "/tmp:/scratch:rw") == 0);
    CHECK(spec_apply(&c, &o, NULL, &err) == 0 && c.n_mounts == 3);
    CHECK(strcmp(c.mounts[0].destination, SPEC_AGENT_DIR) == 0 &&
          strv_contains(&c.mounts[0].options, "ro"));
    CHECK(strcmp(c.mounts[1].destination, "/data") == 0 && strv_contains(&c.mounts[1].options, "ro"));
    CHECK(strcmp(c.mounts[2].destination, "/scratch") == 0 &&
          strv_contains(&c.mounts[2].options, "rw"));
    CHECK(strncmp(env_of(&c, "PATH"), SPEC_AGENT_DIR "/bin:", strlen(SPEC_AGENT_DIR) + 5) == 0);
    spec_opts_free(&o);
    config_free(&c);
    c = (struct rr_config){0};
    o = (struct spec_opts){0};
    CHECK(strv_push(&o.binds, "/usr/share:data") == 0);
    CHECK(spec_apply(&c, &o, NULL, &err) < 0);
    spec_opts_free(&o);
    o = (struct spec_opts){0};
    CHECK(strv_push(&o.binds, "/does/not/exist:/x") == 0);
    CHECK(spec_apply(&c, &o, NULL, &err) < 0);
    spec_opts_free(&o);
    config_free(&c);
}
