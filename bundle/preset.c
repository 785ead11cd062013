/* Agent presets: parsing and finding them (see preset.h). Hostile text like
 * config.json: the JSON module's caps, every key known, every value checked
 * as the config's own parser would. */
#include "bundle/preset.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/jfield.h"
#include "bundle/preset_builtin.h"
#include "common/cleanup.h"

static const struct json_limits preset_limits = {
    .max_bytes = PRESET_MAX_BYTES,
    .max_depth = 8,
    .max_nodes = 4096,
    .max_string = RR_HOME_FILE_BYTES,
    .max_members = 128,
};

static bool env_name_ok(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return false;
    }
    return true;
}

int preset_check_env_assignment(const char *kv, const char *path, struct rr_error *err);

/* K=V with K a variable name; V any text (NUL is impossible here). */
int preset_check_env_assignment(const char *kv, const char *path, struct rr_error *err)
{
    const char *eq = strchr(kv, '=');

    if (eq == NULL || !env_name_ok(kv, (size_t)(eq - kv)))
        return rr_fail(err, 0, "%s: \"NAME=value\" with NAME of [A-Za-z0-9_] is required", path);
    return 0;
}

static int check_var(const char *v, const char *path, struct rr_error *err)
{
    if (v != NULL && !env_name_ok(v, strlen(v)))
        return rr_fail(err, 0, "%s: not a variable name", path);
    return 0;
}

static int check_lists(const struct rr_preset *p, struct rr_error *err)
{
    char path[JPATH_MAX];

    for (size_t i = 0; i < p->base_url_env.n; i++) {
        const char *v = p->base_url_env.v[i];
        size_t n = strcspn(v, "=");
        jpath_index(path, "baseUrlEnv", i);
        if (!env_name_ok(v, n) || (v[n] == '=' && v[n + 1] != '/'))
            return rr_fail(err, 0, "%s: NAME or NAME=/path", path);
    }
    for (size_t i = 0; i < p->env.n; i++) {
        jpath_index(path, "env", i);
        if (preset_check_env_assignment(p->env.v[i], path, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < p->allow.n; i++)
        if (p->allow.v[i][0] != '/')
            return rr_fail(err, 0, "allow[%zu]: a path prefix starting with \"/\"", i);
    return 0;
}

static int check_name(const char *name, struct rr_error *err)
{
    size_t n = strlen(name);

    if (n == 0 || n > PRESET_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != n)
        return rr_fail(err, 0, "name: 1-%d of [a-z0-9-]", PRESET_NAME_MAX);
    return 0;
}

static int parse_home(const struct json_node *root, struct rr_preset *p, struct rr_error *err)
{
    const struct json_node *hf = json_get(root, "homeFiles");

    if (hf != NULL &&
        config_parse_home_files(hf, "homeFiles", &p->home_files, &p->n_home_files, err) < 0)
        return -1;
    return config_parse_artifacts(root, "", &p->artifacts, err);
}

int preset_from_json(const struct json_node *root, struct rr_preset *p, struct rr_error *err)
{
    static const char *const keys[] = {
        "name",          "description", "upstream",     "header",    "headerPrefix",
        "allow",         "baseUrlEnv",  "credentialEnv", "dummyKeyEnv", "env",
        "homeFiles",     "artifacts",   "nestedSandboxes", "sandboxRemedy", NULL};
    const char *path = "";

    memset(p, 0, sizeof(*p));
    if (jf_expect(root, JSON_OBJECT, "(preset)", err) < 0 ||
        jf_only_keys(root, path, keys, err) < 0 ||
        jf_string(root, "name", path, true, &p->name, err) < 0 ||
        jf_string(root, "description", path, false, &p->description, err) < 0 ||
        jf_string(root, "upstream", path, false, &p->upstream, err) < 0 ||
        jf_string(root, "header", path, false, &p->header, err) < 0 ||
        jf_string(root, "headerPrefix", path, false, &p->header_prefix, err) < 0 ||
        jf_strv(root, "allow", path, &p->allow, err) < 0 ||
        jf_strv_or_string(root, "baseUrlEnv", path, &p->base_url_env, err) < 0 ||
        jf_string(root, "credentialEnv", path, false, &p->credential_env, err) < 0 ||
        jf_string(root, "dummyKeyEnv", path, false, &p->dummy_key_env, err) < 0 ||
        jf_strv(root, "env", path, &p->env, err) < 0 ||
        jf_bool(root, "nestedSandboxes", path, &p->nested_sandboxes, NULL, err) < 0 ||
        jf_string(root, "sandboxRemedy", path, false, &p->sandbox_remedy, err) < 0 ||
        check_name(p->name, err) < 0 ||
        check_var(p->credential_env, "credentialEnv", err) < 0 ||
        check_var(p->dummy_key_env, "dummyKeyEnv", err) < 0 || check_lists(p, err) < 0 ||
        parse_home(root, p, err) < 0) {
        preset_free(p);
        return -1;
    }
    if (p->upstream != NULL && strncmp(p->upstream, "https://", 8) != 0) {
        preset_free(p);
        return rr_fail(err, 0, "upstream: an https:// URL is required");
    }
    return 0;
}

static bool is_name(const char *s)
{
    size_t n = strlen(s);

    return n > 0 && n <= PRESET_NAME_MAX &&
           strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);

    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* A directory or file near the binary is taken only when root or the
 * caller owns it and no one else may write it: a binary copied to
 * /tmp/x/ must not read a preset someone planted in /tmp/share/, which
 * could point the broker, and the key, at their own server. */
static bool trusted(const struct stat *st)
{
    return (st->st_uid == 0 || st->st_uid == geteuid()) && (st->st_mode & 022) == 0;
}

/* NAME.json in DIR, when DIR and the file are trusted: 1 and *root, 0 when
 * it is not there (or not trusted), -1 on a file that does not parse. */
static int from_dir(const char *dir, const char *file, struct json_node **root,
                    struct rr_error *err)
{
    _cleanup_close_ int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st;

    if (dfd < 0 || fstat(dfd, &st) < 0 || !trusted(&st) ||
        fstatat(dfd, file, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || !trusted(&st))
        return 0;
    if (json_parse_file(dfd, file, &preset_limits, root, err) < 0)
        return rr_wrap(err, "preset %s/%s", dir, file);
    return 1;
}

/* "claude, codex, gemini" */
static const char *builtin_names(void)
{
    static char names[256];

    names[0] = '\0';
    for (size_t i = 0; i < preset_builtins_n; i++)
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? ", " : "",
                 preset_builtins[i].name);
    return names;
}

/* A NAME: a file near the binary overrides the copy built in. Near is
 * where an install puts them (BINDIR/../share/revrun/agents, whatever the
 * PREFIX), or agents/ of a source tree (beside ./revrun, one up from
 * build/revrun). */
static int find_named(const char *name, struct json_node **root, struct rr_error *err)
{
    static const char *const near[] = {"../share/revrun/agents", "agents", "../agents"};
    char exe[PATH_MAX], dir[PATH_MAX + 64], file[PRESET_NAME_MAX + 8];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;
    int r;

    snprintf(file, sizeof(file), "%s.json", name);
    if (n > 0 && (exe[n] = '\0', slash = strrchr(exe, '/')) != NULL) {
        *slash = '\0';
        for (size_t i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
            snprintf(dir, sizeof(dir), "%s/%s", exe, near[i]);
            if ((r = from_dir(dir, file, root, err)) != 0)
                return r < 0 ? -1 : 0;
        }
    }
    for (size_t i = 0; i < preset_builtins_n; i++)
        if (strcmp(preset_builtins[i].name, name) == 0)
            return json_parse(preset_builtins[i].text, preset_builtins[i].len, &preset_limits,
                              root, err) < 0
                       ? rr_wrap(err, "built-in preset %s", name)
                       : 0;
    return rr_fail(err, 0, "--agent %s: no preset of that name (built in: %s); give a FILE "
                                "with a '/'",
                   name, builtin_names());
}

int preset_load(const char *arg, struct rr_preset *p, struct rr_error *err)
{
    struct json_node *root = NULL;
    int r;

    if (strchr(arg, '/') == NULL && !has_suffix(arg, ".json")) {
        if (!is_name(arg))
            return rr_fail(err, 0, "--agent %s: a preset name is [a-z0-9-]{1,32}", arg);
        if (find_named(arg, &root, err) < 0)
            return -1;
    } else if (json_parse_file(AT_FDCWD, arg, &preset_limits, &root, err) < 0) {
        return rr_wrap(err, "preset %s", arg);
    }
    r = preset_from_json(root, p, err);
    json_free(root);
    return r < 0 ? rr_wrap(err, "preset %s", arg) : 0;
}

void preset_free(struct rr_preset *p)
{
    free(p->name);
    free(p->description);
    free(p->upstream);
    free(p->header);
    free(p->header_prefix);
    strv_free(&p->allow);
    strv_free(&p->base_url_env);
    free(p->credential_env);
    free(p->dummy_key_env);
    strv_free(&p->env);
    for (size_t i = 0; i < p->n_home_files; i++) {
        free(p->home_files[i].path);
        free(p->home_files[i].content);
    }
    free(p->home_files);
    strv_free(&p->artifacts);
    free(p->sandbox_remedy);
    memset(p, 0, sizeof(*p));
}
