/* io.revrun.* annotations on an engine's config (containerd's ctr run, with
 * a bind mount added): revrun's own settings, parsed as hostile, bounded by
 * the host policy; annotations outside io.revrun.* are carried, never
 * refused (the runtime spec: a runtime MUST NOT fail on an unknown one). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "bundle/policy.h"
#include "runtime/confine/profile/profile.h"
#include "tests/tap.h"

static char dir[] = "/tmp/revrun-test-annot.XXXXXX";
static char policy[sizeof(dir) + 16], checkout[sizeof(dir) + 16], mounts[512];
static struct rr_error err;
static struct rr_config cfg;
static struct profile prof;
static bool have_cfg, have_prof;
static const char *ns_override; /* linux.namespaces, when set */

static void reset(void)
{
    if (have_prof)
        profile_free(&prof);
    if (have_cfg)
        config_free(&cfg);
    have_cfg = have_prof = false;
    err = (struct rr_error){0};
}

/* containerd's config with mounts (JSON text) and annotations (JSON text)
 * in place of its own, root.path at the test's directory. */
static int build_with(const char *mnts, const char *annotations)
{
    struct json_node *root = NULL;
    char path[] = "tests/fixtures/engines/containerd-ctr-run.json";
    int r;

    reset();
    if (json_parse_file(AT_FDCWD, path, &json_limits_config, &root, &err) < 0)
        return -1;
    for (size_t i = 0; i < root->u.object.n; i++) {
        const char *k = root->u.object.keys[i];
        const char *text = strcmp(k, "mounts") == 0 ? mnts
                           : strcmp(k, "annotations") == 0 ? annotations : NULL;
        struct json_node *n = NULL, *lx = root->u.object.values[i];
        if (strcmp(k, "linux") == 0 && ns_override != NULL)
            for (size_t j = 0; j < lx->u.object.n; j++)
                if (strcmp(lx->u.object.keys[j], "namespaces") == 0 &&
                    json_parse(ns_override, strlen(ns_override), &json_limits_config, &n,
                               &err) == 0) {
                    json_free(lx->u.object.values[j]);
                    lx->u.object.values[j] = n;
                    n = NULL;
                }
        if (text == NULL)
            continue;
        if (json_parse(text, strlen(text), &json_limits_config, &n, &err) < 0) {
            tap_note("test bug: %s", text);
            json_free(root);
            return -1;
        }
        json_free(root->u.object.values[i]);
        root->u.object.values[i] = n;
    }
    if (json_get(root, "annotations") == NULL) {
        size_t n = root->u.object.n;
        struct json_node *a = NULL;
        if (json_parse(annotations, strlen(annotations), &json_limits_config, &a, &err) < 0) {
            json_free(root);
            return -1;
        }
        root->u.object.keys = realloc(root->u.object.keys, (n + 1) * sizeof(char *));
        root->u.object.values = realloc(root->u.object.values, (n + 1) * sizeof(void *));
        root->u.object.keys[n] = strdup("annotations");
        root->u.object.values[n] = a;
        root->u.object.n++;
    }
    r = config_from_json(root, &cfg, &err);
    json_free(root);
    if (r < 0)
        return -1;
    have_cfg = true;
    free(cfg.root.path);
    cfg.root.path = strdup(dir);
    if (profile_build_engine(&cfg, "/bundle", policy, &prof, &err) < 0)
        return -1;
    have_prof = true;
    return 0;
}

static int build(const char *annotations)
{
    return build_with(mounts, annotations);
}

static bool refused_with(int r, const char *want)
{
    if (r == 0) {
        tap_note("accepted (wanted \"%s\")", want);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return true;
}

static bool has_note(const char *want)
{
    for (size_t i = 0; have_prof && i < prof.notes.n; i++)
        if (strstr(prof.notes.v[i], want) != NULL)
            return true;
    tap_note("no note with \"%s\"", want);
    return false;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0)
        tap_note("cannot write %s", path);
}

static const struct mount_plan *checkout_plan(void)
{
    for (size_t i = 0; have_prof && i < prof.n_mounts; i++)
        if (prof.mounts[i].kind == MOUNT_CHECKOUT)
            return &prof.mounts[i];
    return NULL;
}

#define CO_OWNER 4242u

TEST(setup_dirs)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(policy, sizeof(policy), "%s/policy.json", dir);
    snprintf(checkout, sizeof(checkout), "%s/co", dir);
    CHECK(mkdir(checkout, 0755) == 0);
    /* a checkout is never root's (profile/checkout.c checkout_owner_ok) */
    CHECK(chown(checkout, CO_OWNER, CO_OWNER) == 0 || geteuid() != 0);
    snprintf(mounts, sizeof(mounts),
             "[{\"destination\": \"/proc\", \"type\": \"proc\", \"source\": \"proc\"}, "
             "{\"destination\": \"/work\", \"type\": \"bind\", \"source\": \"%s\", "
             "\"options\": [\"rbind\", \"rw\"]}]", checkout);
}

TEST(annotations_outside_revruns_are_carried_not_judged)
{
    CHECK(build("{\"org.example/anything\": \"\\u0001 ../../ whatever\", "
                "\"io.kubernetes.cri.sandbox-id\": \"abc\", \"io.revrunner.x\": \"y\", "
                "\"io.revrun\": \"not in the namespace (no dot)\"}") == 0);
    CHECK(cfg.annotations.n == 4);
    CHECK(strv_contains(&cfg.annotations, "io.kubernetes.cri.sandbox-id=abc"));
    CHECK(checkout_plan() == NULL && prof.lower == NULL);
    reset();
}

TEST(unknown_revrun_annotations_are_refused)
{
    CHECK(refused_with(build("{\"io.revrun.chekout\": \"/work\"}"), "unknown revrun annotation"));
    CHECK(refused_with(build("{\"io.revrun.\": \"\"}"), "unknown revrun annotation"));
    CHECK(refused_with(build("{\"io.revrun.upperSize\": \"64M\"}"), "need io.revrun.checkout"));
    CHECK(refused_with(build("{\"io.revrun.export\": \"x\"}"), "need io.revrun.checkout"));
    reset();
}

TEST(the_checkout_mount_becomes_an_overlay)
{
    const struct mount_plan *m;

    CHECK(build("{\"io.revrun.checkout\": \"/work\"}") == 0);
    m = checkout_plan();
    if (CHECK(m != NULL)) {
        CHECK(strcmp(m->destination, "/work") == 0);
        CHECK(strcmp(prof.lower, checkout) == 0);
        CHECK(strcmp(prof.checkout_path, "/work") == 0);
    }
    CHECK(prof.idmap_lower);
    CHECK(prof.upper_size == RR_POLICY_UPPER_SIZE);
    CHECK(prof.backend == RR_BACKEND_AUTO);
    CHECK(build("{\"io.revrun.checkout\": \"/work\", \"io.revrun.overlay\": \"fuse\"}") == 0);
    CHECK(prof.backend == RR_BACKEND_FUSE);
    CHECK(build("{\"io.revrun.checkout\": \"/work\"}") == 0);
    /* the store's owner is the container's root, the checkout's owner
     * appears as the process's user: both revrun's mapped ids */
    CHECK(prof.host_uid == PROFILE_ENGINE_HOST_BASE);
    CHECK(prof.eng.lower_as_uid == PROFILE_ENGINE_HOST_BASE + cfg.process.uid);
    CHECK(prof.eng.export_dir[0] == '\0');
    /* a trailing slash names the same mount */
    CHECK(build("{\"io.revrun.checkout\": \"/work/\"}") == 0 && checkout_plan() != NULL);
    reset();
}

TEST(the_checkout_must_be_one_bind_nothing_inside_or_over_it)
{
    char m[1024];

    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/elsewhere\"}"),
                       "no mount of the config has it"));
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/proc\"}"), "not a bind mount"));
    snprintf(m, sizeof(m),
             "[{\"destination\": \"/work\", \"type\": \"bind\", \"source\": \"%s\", "
             "\"options\": [\"rbind\"]}, {\"destination\": \"/work/sub\", \"type\": \"tmpfs\", "
             "\"source\": \"tmpfs\"}]", checkout);
    CHECK(refused_with(build_with(m, "{\"io.revrun.checkout\": \"/work\"}"), "inside the checkout"));
    snprintf(m, sizeof(m),
             "[{\"destination\": \"/work\", \"type\": \"bind\", \"source\": \"%s\", "
             "\"options\": [\"rbind\"]}, {\"destination\": \"/\", \"type\": \"tmpfs\", "
             "\"source\": \"tmpfs\"}]", checkout);
    CHECK(build_with(m, "{\"io.revrun.checkout\": \"/work\"}") < 0); /* "/" is refused anyway */
    snprintf(m, sizeof(m),
             "[{\"destination\": \"/a/work\", \"type\": \"bind\", \"source\": \"%s\", "
             "\"options\": [\"rbind\"]}, {\"destination\": \"/a\", \"type\": \"tmpfs\", "
             "\"source\": \"tmpfs\"}]", checkout);
    CHECK(refused_with(build_with(m, "{\"io.revrun.checkout\": \"/a/work\"}"),
                       "would cover the checkout"));
    snprintf(m, sizeof(m),
             "[{\"destination\": \"/work\", \"type\": \"bind\", \"source\": \"%s\", "
             "\"options\": [\"rbind\"]}, {\"destination\": \"/work\", \"type\": \"bind\", "
             "\"source\": \"%s\", \"options\": [\"rbind\"]}]", checkout, checkout);
    CHECK(refused_with(build_with(m, "{\"io.revrun.checkout\": \"/work\"}"), "both have it"));
    snprintf(m, sizeof(m),
             "[{\"destination\": \"/work\", \"type\": \"bind\", \"source\": \"%s/nothere\", "
             "\"options\": [\"rbind\"]}]", dir);
    CHECK(refused_with(build_with(m, "{\"io.revrun.checkout\": \"/work\"}"), "nothere"));
    reset();
}

TEST(hostile_values_are_refused)
{
    static const struct {
        const char *ann, *want;
    } cases[] = {
        {"{\"io.revrun.checkout\": \"work\"}", "absolute path"},
        {"{\"io.revrun.checkout\": \"/work/../etc\"}", "\"..\" components"},
        {"{\"io.revrun.checkout\": \"/\"}", "cannot be the root"},
        {"{\"io.revrun.checkout\": \"//work\"}", "empty components"},
        {"{\"io.revrun.checkout\": \"/wo\\nrk\"}", "control character"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.upperSize\": \"1K\"}", "at least 1M"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.upperSize\": \"9Z\"}", "at least 1M"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.upperSize\": \"99999999999999T\"}",
         "at least 1M"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": \"../../etc\"}", "not a name"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": \"a/b\"}", "not a name"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": \".hidden\"}", "not a name"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": \"\"}", "not a name"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": "
         "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "not a name"},
        {"{\"io.revrun.policy\": \"..\"}", "not a name"},
        {"{\"io.revrun.policy\": \"x y\"}", "not a name"},
        {"{\"io.revrun.checkout\": \"/work\", \"io.revrun.overlay\": \"kernel\"}",
         "one of auto, native, fuse"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!CHECK(refused_with(build(cases[i].ann), cases[i].want)))
            tap_note("case %zu: %s", i, cases[i].ann);
    reset();
}

TEST(a_checkout_holding_a_credential_is_refused)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/.git", checkout);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path, sizeof(path), "%s/.git/config", checkout);
    write_file(path, "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic "
                     "eC1hY2Nlc3MtdG9rZW46Z2hzX3NlY3JldA==\n");
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "credential"));
    unlink(path);
    snprintf(path, sizeof(path), "%s/.git", checkout);
    rmdir(path);
    reset();
}

/* F1 of review2: the owner of the bind's source is idmapped to the
 * container's user; root's (or a system id's) tree would be readable. */
TEST(a_checkout_owned_by_root_or_a_system_id_or_outside_the_policy_is_refused)
{
    if (geteuid() != 0) {
        tap_note("skipped: needs root (chown)");
        return;
    }
    unlink(policy);
    CHECK(chown(checkout, 0, 0) == 0);
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "owned by uid 0 gid 0"));
    CHECK(chown(checkout, CO_OWNER, 42) == 0); /* group shadow */
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "system id"));
    CHECK(chown(checkout, 999, CO_OWNER) == 0);
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "system id"));
    CHECK(chown(checkout, CO_OWNER, CO_OWNER) == 0);
    CHECK(build("{\"io.revrun.checkout\": \"/work\"}") == 0 && prof.lower_owner == CO_OWNER);
    /* the policy's list narrows the owners, and never names root */
    write_file(policy, "{\"engine\": {\"checkoutOwners\": [1000, 1001]}}");
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "not one of the policy's"));
    write_file(policy, "{\"engine\": {\"checkoutOwners\": [4242]}}");
    CHECK(build("{\"io.revrun.checkout\": \"/work\"}") == 0);
    write_file(policy, "{\"engine\": {\"checkoutOwners\": [0]}}");
    CHECK(refused_with(build("{}"), "root is never a checkout owner"));
    write_file(policy, "{\"engine\": {\"checkoutOwners\": []}}");
    CHECK(refused_with(build("{}"), "1 to 64 uids"));
    unlink(policy);
    reset();
}

TEST(a_joined_pid_namespace_is_refused_with_a_checkout)
{
    ns_override = "[{\"type\": \"pid\", \"path\": \"/proc/1/ns/pid\"}, {\"type\": \"mount\"}]";
    CHECK(build("{}") == 0);
    CHECK(refused_with(build("{\"io.revrun.checkout\": \"/work\"}"), "joined pid namespace"));
    ns_override = NULL;
    reset();
}

TEST(the_policy_bounds_what_annotations_ask)
{
    /* no policy file: no name is a policy of this host */
    unlink(policy);
    CHECK(refused_with(build("{\"io.revrun.policy\": \"wide\"}"), "not a policy of this host"));
    write_file(policy, "{\"engine\": {\"capabilities\": [\"CAP_CHOWN\"]},"
                       " \"policies\": {\"wide\": {\"capabilities\": [\"CAP_NET_ADMIN\", "
                       "\"CAP_CHOWN\"], \"upperSize\": \"64M\", \"exportRoot\": \"/srv/exports\"},"
                       " \"narrow\": {\"capabilities\": []}}}");
    CHECK(refused_with(build("{\"io.revrun.policy\": \"other\"}"), "not a policy of this host"));
    CHECK(refused_with(build("{\"io.revrun.policy\": \"engine\"}"), "not a policy of this host"));
    /* the containerd config asks for its default set: each policy grants
     * what it allows of it */
    CHECK(build("{}") == 0);
    CHECK(prof.eng.caps[0] == 1ULL << rr_cap_by_name("CAP_CHOWN"));
    CHECK(build("{\"io.revrun.policy\": \"narrow\"}") == 0);
    CHECK(prof.eng.caps[0] == 0 && has_note("policy narrow"));
    /* F2 of review2: a named policy's omitted keys are "engine"'s, not
     * revrun's defaults: naming one only to raise the upper widens no cap */
    write_file(policy, "{\"engine\": {\"capabilities\": [], \"upperSize\": \"8M\"},"
                       " \"policies\": {\"bigupper\": {\"upperSize\": \"4G\"}}}");
    CHECK(build("{}") == 0);
    CHECK(prof.eng.caps[0] == 0 && prof.eng.caps[1] == 0);
    CHECK(build("{\"io.revrun.policy\": \"bigupper\", \"io.revrun.checkout\": \"/work\"}") == 0);
    CHECK(prof.eng.caps[0] == 0 && prof.eng.caps[1] == 0 && prof.eng.caps[2] == 0);
    CHECK(prof.upper_size == 4ULL << 30);
    CHECK(build("{\"io.revrun.checkout\": \"/work\"}") == 0 && prof.upper_size == 8u << 20);
    write_file(policy, "{\"engine\": {\"capabilities\": [\"CAP_CHOWN\"]},"
                       " \"policies\": {\"wide\": {\"capabilities\": [\"CAP_NET_ADMIN\", "
                       "\"CAP_CHOWN\"], \"upperSize\": \"64M\", \"exportRoot\": \"/srv/exports\"},"
                       " \"narrow\": {\"capabilities\": []}}}");
    /* sizes: the policy's at most, said when tightened; the export under
     * the policy's root */
    CHECK(build("{\"io.revrun.policy\": \"wide\", \"io.revrun.checkout\": \"/work\", "
                "\"io.revrun.upperSize\": \"1G\", \"io.revrun.export\": \"run-7\"}") == 0);
    CHECK(prof.upper_size == 64u << 20 && has_note("tightened to the policy's"));
    CHECK(strcmp(prof.eng.export_dir, "/srv/exports/run-7") == 0);
    CHECK(build("{\"io.revrun.policy\": \"wide\", \"io.revrun.checkout\": \"/work\", "
                "\"io.revrun.upperSize\": \"2M\"}") == 0);
    CHECK(prof.upper_size == 2u << 20);
    CHECK(build("{\"io.revrun.checkout\": \"/work\", \"io.revrun.export\": \"run-8\"}") == 0);
    CHECK(strcmp(prof.eng.export_dir, RR_POLICY_EXPORT_ROOT "/run-8") == 0);
    /* a policy the file cannot hold: refused whichever one is named */
    write_file(policy, "{\"policies\": {\"bad\": {\"capabilities\": [\"CAP_SYS_ADMIN\"]}}}");
    CHECK(refused_with(build("{}"), "never granted"));
    write_file(policy, "{\"policies\": {\"../x\": {}}}");
    CHECK(refused_with(build("{}"), "not a policy name"));
    write_file(policy, "{\"policies\": {\"p\": {\"exportRoot\": \"relative\"}}}");
    CHECK(refused_with(build("{}"), "absolute path"));
    write_file(policy, "{\"policies\": {\"p\": {\"upperSize\": \"1K\"}}}");
    CHECK(refused_with(build("{}"), "at least 1M"));
    write_file(policy, "{\"policies\": {\"p\": {\"widen\": true}}}");
    CHECK(refused_with(build("{}"), "unknown or unsupported key"));
    unlink(policy);
    reset();
}

TEST(cleanup)
{
    CHECK(rmdir(checkout) == 0);
    CHECK(rmdir(dir) == 0);
}
