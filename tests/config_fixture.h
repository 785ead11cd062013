/* The fixture of test_config.c and test_config_roundtrip.c: one valid
 * config.json (base), and loading it edited in one place. Included by
 * those two only. */
#ifndef REVRUN_TESTS_CONFIG_FIXTURE_H
#define REVRUN_TESTS_CONFIG_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "tests/tap.h"

/* Uses every section; mounts[0] proc, [1] tmpfs, [2] bind; seccomp
 * syscalls[1] has argument conditions. */
static const char base[] =
    "{\"ociVersion\": \"1.0.2\","
    " \"process\": {\"terminal\": false, \"user\": {\"uid\": 1000, \"gid\": 1000},"
    "   \"args\": [\"sh\", \"-c\", \"true\"], \"env\": [\"A=1\", \"B=\"], \"cwd\": \"/workspace\","
    "   \"capabilities\": {\"bounding\": [], \"effective\": []},"
    "   \"rlimits\": [{\"type\": \"RLIMIT_NOFILE\", \"soft\": 1024, \"hard\": 4096}],"
    "   \"noNewPrivileges\": true},"
    " \"root\": {\"path\": \"rootfs\", \"readonly\": true},"
    " \"hostname\": \"revrun\","
    " \"mounts\": [{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"},"
    "   {\"destination\": \"/tmp\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": "
    "[\"size=1m\"]},"
    "   {\"destination\": \"/usr\", \"type\": \"bind\", \"source\": \"/usr\", \"options\": "
    "[\"rbind\", \"ro\"]}],"
    " \"linux\": {\"namespaces\": [{\"type\": \"user\"}, {\"type\": \"mount\"}, {\"type\": "
    "\"pid\"},"
    "     {\"type\": \"network\"}, {\"type\": \"ipc\"}, {\"type\": \"uts\"}, {\"type\": "
    "\"cgroup\"}],"
    "   \"uidMappings\": [{\"containerID\": 1000, \"hostID\": 2000000000, \"size\": 1}],"
    "   \"gidMappings\": [{\"containerID\": 1000, \"hostID\": 2000000000, \"size\": 1}],"
    "   \"resources\": {\"memory\": {\"limit\": 1048576, \"swap\": 2097152}, \"pids\": {\"limit\": "
    "64},"
    "     \"cpu\": {\"quota\": 50000, \"period\": 100000}},"
    "   \"seccomp\": {\"defaultAction\": \"SCMP_ACT_ERRNO\", \"architectures\": "
    "[\"SCMP_ARCH_X86_64\"],"
    "     \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_ALLOW\"},"
    "       {\"names\": [\"personality\"], \"action\": \"SCMP_ACT_ALLOW\","
    "        \"args\": [{\"index\": 0, \"value\": 0, \"op\": \"SCMP_CMP_EQ\"}]}]},"
    "   \"maskedPaths\": [\"/proc/kcore\"], \"readonlyPaths\": [\"/proc/sys\"],"
    "   \"cgroupsPath\": \"/revrun/t\"},"
    " \"annotations\": {\"anything.goes/here\": \"x\"},"
    " \"revrun\": {\"lower\": \"/src/checkout\", \"checkoutPath\": \"/workspace\","
    "   \"overlay\": \"auto\", \"upperSize\": \"64M\", \"timeout\": 60, \"network\": \"none\","
    "   \"bestEffort\": [\"memory\"],"
    "   \"writeback\": {\"protect\": [\".git/**\"], \"maxFiles\": 10, \"maxDepth\": 8},"
    "   \"egress\": {\"mode\": \"none\"}}}";

/* A working broker section for the egress cases. */
static const char broker[] = "{\"mode\": \"broker\", \"upstream\": \"https://api.example.com\","
                             " \"credentialEnv\": \"KEY\", \"port\": 8080}";

static struct rr_error err;
static struct rr_config cfg;
static bool cfg_loaded;

static struct json_node *frag(const char *text)
{
    struct json_node *n = NULL;
    struct rr_error e;

    if (json_parse(text, strlen(text), &json_limits_config, &n, &e) < 0)
        tap_note("test bug: %s: %s", text, e.msg);
    return n;
}

/* The member key of obj, appended (value NULL) when absent. */
static struct json_node **member(struct json_node *obj, const char *key)
{
    size_t n = obj->u.object.n;

    for (size_t i = 0; i < n; i++)
        if (strcmp(obj->u.object.keys[i], key) == 0)
            return &obj->u.object.values[i];
    obj->u.object.keys = realloc(obj->u.object.keys, (n + 1) * sizeof(char *));
    obj->u.object.values = realloc(obj->u.object.values, (n + 1) * sizeof(void *));
    obj->u.object.keys[n] = strdup(key);
    obj->u.object.values[n] = NULL;
    obj->u.object.n++;
    return &obj->u.object.values[n];
}

/* The slot at path ("a.b[2].c") below *at. */
static struct json_node **slot(struct json_node **at, const char *path)
{
    while (*path != '\0') {
        if (*path == '[') {
            char *end;
            size_t i = strtoul(path + 1, &end, 10);
            at = &(*at)->u.array.items[i];
            path = end + 1;
        } else {
            char key[64];
            size_t n;
            path += *path == '.';
            n = strcspn(path, ".[");
            snprintf(key, sizeof(key), "%.*s", (int)n, path);
            at = member(*at, key);
            path += n;
        }
    }
    return at;
}

/* Remove the last key of path from its object. */
static void drop(struct json_node *root, const char *path)
{
    const char *dot = strrchr(path, '.');
    char parent[128];
    struct json_node *obj = root;

    if (dot != NULL) {
        snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
        obj = *slot(&root, parent);
    }
    (void)member(obj, dot ? dot + 1 : path);
    for (size_t i = 0; i < obj->u.object.n; i++) {
        if (strcmp(obj->u.object.keys[i], dot ? dot + 1 : path) != 0)
            continue;
        free(obj->u.object.keys[i]);
        json_free(obj->u.object.values[i]);
        obj->u.object.n--;
        memmove(&obj->u.object.keys[i], &obj->u.object.keys[i + 1],
                (obj->u.object.n - i) * sizeof(char *));
        memmove(&obj->u.object.values[i], &obj->u.object.values[i + 1],
                (obj->u.object.n - i) * sizeof(void *));
        return;
    }
}

/* Load base with path set to value (JSON text; NULL removes the key);
 * path NULL loads base as is. */
static int load_edited(const char *path, const char *value)
{
    struct json_node *root = frag(base);
    int r;

    if (cfg_loaded)
        config_free(&cfg);
    cfg_loaded = false;
    err = (struct rr_error){0};
    if (path != NULL && value == NULL) {
        drop(root, path);
    } else if (path != NULL) {
        struct json_node **s = slot(&root, path);
        json_free(*s);
        *s = frag(value);
    }
    r = config_from_json(root, &cfg, &err);
    json_free(root);
    cfg_loaded = r == 0;
    return r;
}

static bool refused(const char *path, const char *value, const char *want)
{
    if (load_edited(path, value) == 0) {
        tap_note("accepted %s = %s", path, value ? value : "(removed)");
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("%s = %s: message \"%s\" lacks \"%s\"", path, value ? value : "(removed)", err.msg,
                 want);
        return false;
    }
    return true;
}

static bool accepted(const char *path, const char *value)
{
    if (load_edited(path, value) < 0) {
        tap_note("refused %s = %s: %s", path ? path : "(base)", value ? value : "(removed)",
                 err.msg);
        return false;
    }
    return true;
}

#endif
