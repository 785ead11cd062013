/* An engine container after create (engine.h): the hooks start and delete
 * run, the notes create kept, the sysctls written host side. */
#include "runtime/container/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/container/hooks.h"
#include "runtime/container/statedir.h"

bool engine_state_is_engine(const struct rr_state *s)
{
    return s->backend != NULL && strcmp(s->backend, ENGINE_BACKEND) == 0;
}

/* ---- after create: the hooks start and delete run ---- */

static int load_kept(int dirfd, struct rr_config *cfg, struct rr_error *err)
{
    struct json_node *root = NULL;
    int r;

    if (json_parse_file(dirfd, CONFIG_FILE, &json_limits_config, &root, err) < 0)
        return -1;
    r = config_from_json(root, cfg, err);
    json_free(root);
    return r;
}

int engine_after(int dirfd, const struct rr_state *s, enum rr_hook_kind kind, const char *status,
                 struct rr_error *err)
{
    struct rr_config cfg;
    _cleanup_free_ char *state = NULL;
    int r = 0;

    if (load_kept(dirfd, &cfg, err) < 0)
        return rr_wrap(err, "the config kept at create");
    if (cfg.n_hooks[kind] > 0) {
        r = hooks_state_json(s->id, status, (pid_t)s->pid, s->bundle, &cfg.annotations, &state,
                             err);
        if (r == 0)
            hooks_run_warn(&cfg, kind, state);
    }
    config_free(&cfg);
    return r;
}

int engine_read_notes(int dirfd, char *out, size_t len)
{
    _cleanup_close_ int fd = openat(dirfd, NOTES_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n;

    out[0] = '\0';
    if (fd < 0)
        return -1;
    n = read(fd, out, len - 1);
    if (n < 0)
        return -1;
    out[n] = '\0';
    return 0;
}

int engine_write_sysctls(const struct rr_strv *kvs, struct rr_error *err)
{
    for (size_t i = 0; i < kvs->n; i++) {
        const char *eq = strchr(kvs->v[i], '=');
        char path[256];
        _cleanup_close_ int fd = -1;
        snprintf(path, sizeof(path), "/proc/sys/%.*s", (int)(eq - kvs->v[i]), kvs->v[i]);
        for (char *c = path + 10; *c; c++)
            if (*c == '.')
                *c = '/';
        fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0 || rr_write_all(fd, eq + 1, strlen(eq + 1)) < 0)
            return rr_fail(err, errno, "linux.sysctl %.*s", (int)(eq - kvs->v[i]), kvs->v[i]);
    }
    return 0;
}
