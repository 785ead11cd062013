/* An engine container's state directory, made by create (engine.c): the
 * config as the engine sent it, what was tightened, the state record, the
 * exec fifo and the device cgroup. */
#include "runtime/container/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/confine/cgroup_devices.h"
#include "runtime/container/log.h"
#include "runtime/container/statedir.h"

/* ---- the state directory ---- */

static uint32_t host_of(const struct rr_id_mapping *m, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (id >= m[i].container_id && id - m[i].container_id < m[i].size)
            return m[i].host_id + (id - m[i].container_id);
    return UINT32_MAX;
}

/* The config as the engine sent it, for start's and delete's hooks. */
static int keep_config(struct engine *e, struct rr_error *err)
{
    _cleanup_close_ int fd = openat(e->bundle_fd, "config.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_free_ char *buf = NULL;
    size_t max = json_limits_config.max_bytes, len = 0;
    ssize_t n;

    if (fd < 0)
        return rr_fail(err, errno, "config.json");
    buf = malloc(max + 1);
    if (buf == NULL)
        return rr_fail(err, ENOMEM, "config.json");
    while ((n = read(fd, buf + len, max + 1 - len)) > 0)
        if ((len += (size_t)n) > max)
            return rr_fail(err, EFBIG, "config.json");
    if (n < 0)
        return rr_fail(err, errno, "config.json");
    return rr_write_atomic(e->dir_fd, CONFIG_FILE, buf, len, 0600, err);
}

static int keep_notes(struct engine *e, struct rr_error *err)
{
    size_t len = 0;
    _cleanup_free_ char *text = NULL;

    for (size_t i = 0; i < e->p.notes.n; i++)
        len += strlen(e->p.notes.v[i]) + 1;
    text = calloc(1, len + 1);
    if (text == NULL)
        return rr_fail(err, ENOMEM, "notes");
    for (size_t i = 0; i < e->p.notes.n; i++) {
        strcat(text, e->p.notes.v[i]);
        strcat(text, "\n");
    }
    return rr_write_atomic(e->dir_fd, NOTES_FILE, text, len, 0600, err);
}

int engine_record(struct engine *e, pid_t pid, struct rr_error *err)
{
    struct rr_state s = {0};
    struct proc_ref ref = {0, 0};
    char created[64];
    int r;

    if (pid > 0 && proc_ref_of(pid, &ref, err) < 0)
        return -1;
    /* what `state` reports as runc does: the image root and annotations */
    s.rootfs = (char *)e->p.eng.root_path;
    s.lower = (char *)e->p.lower; /* io.revrun.checkout: what write-back reads against */
    for (size_t i = 0; i < e->cfg->annotations.n; i++) {
        const char *kv = e->cfg->annotations.v[i], *eq = strchr(kv, '=');
        char key[1024];
        if (eq == NULL || (size_t)(eq - kv) >= sizeof(key))
            continue;
        snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
        if (state_add_annotation(&s, key, eq + 1) < 0) {
            r = rr_fail(err, ENOMEM, "state");
            goto out;
        }
    }
    rr_now_rfc3339(created, sizeof(created));
    snprintf(s.id, sizeof(s.id), "%s", e->o->id);
    s.bundle = (char *)e->bundle;
    s.backend = ENGINE_BACKEND;
    s.created = created;
    s.pid = pid;
    s.pid_start = ref.start_time;
    s.owner = (uint32_t)geteuid();
    if (e->cg.version != CG_NONE) {
        s.cgroup = e->cg.path;
        s.cgroup_version = (char *)cgroup_version_name(e->cg.version);
    }
    r = statedir_write_state(e->dir_fd, &s, err);
out:
    for (size_t i = 0; i < 2 * s.n_annotations; i++)
        free(s.annotations[i]);
    free(s.annotations);
    return r;
}

/* linux.resources.devices in the v1 devices controller: the container's
 * cgroup path in that hierarchy too (the one its limits have, or the one
 * they would have: a config without limits still gets its devices cgroup,
 * recorded as a v1 cgroup for delete to remove). Made here, before
 * anything records it: a cgroup is the container's only once this create
 * made it, so a refusal on an existing one (another container's, the same
 * cgroupsPath) kills and removes nothing of it (review2 F3). */
static int device_cgroup(struct engine *e, const char *root, const char *scope,
                         struct rr_error *err)
{
    char base[PATH_MAX], path[PATH_MAX];
    bool made;
    int r;

    (void)root;
    if (e->p.eng.device_rules.n == 0)
        return 0;
    if (e->cg.version == CG_V2) {
        log_msg(LOG_INFO, "tightened: linux.resources.devices: not applied by a cgroup (the "
                          "limits are on cgroup v2, where revrun loads no BPF device program): "
                          "every mount is nodev and only the default devices are there");
        strv_free(&e->p.eng.device_rules);
        return 0;
    }
    if (e->cg.version == CG_V1) {
        snprintf(path, sizeof(path), "%s", e->cg.path);
    } else if (e->p.cgroups_path != NULL) {
        snprintf(path, sizeof(path), "%s", e->p.cgroups_path);
    } else {
        if (cgroup_scope_dir(CG_V1, false, scope, base, sizeof(base), err) < 0)
            return -1;
        if ((size_t)snprintf(path, sizeof(path), "%s/%s", base, e->o->id) >= sizeof(path))
            return rr_fail(err, ENAMETOOLONG, "cgroup path");
    }
    r = cgroup_devices_v1_make(path, &e->p.eng.device_rules, &made, err);
    if (r < 0 && !made) {
        /* not ours: undo only what this create made in the other
         * hierarchies, so abandon() touches nothing at that path */
        cgroup_v1_disown(&e->cg);
        return -1;
    }
    if (e->cg.version == CG_NONE) {
        snprintf(e->cg.path, sizeof(e->cg.path), "%s", path);
        e->cg.version = CG_V1;
        e->cg.controllers = 0;
    }
    /* made: ours, recorded, so abandon() removes it if a rule failed */
    return r;
}

int engine_make_state(struct engine *e, struct rr_error *err)
{
    char root[PATH_MAX], scope[32];
    struct rr_strv warnings = {0};
    uint32_t fifo_owner = host_of(e->p.eng.uid_map, e->p.eng.n_uid_map, 0);
    uint32_t fifo_group = host_of(e->p.eng.gid_map, e->p.eng.n_gid_map, 0);
    int r;

    if (e->root_fd < 0 && (e->root_fd = container_root(e->ctx, true, err)) < 0)
        return -1;
    if (realpath(e->ctx->root, root) == NULL)
        return rr_fail(err, errno, "state root %s", e->ctx->root);
    if ((size_t)snprintf(e->state_path, sizeof(e->state_path), "%s/%s", root, e->o->id) >=
        sizeof(e->state_path))
        return rr_fail(err, ENAMETOOLONG, "state root");
    e->dir_fd = statedir_create(e->root_fd, e->o->id, err);
    if (e->dir_fd < 0 || (e->lock_fd = statedir_lock(e->dir_fd, err)) < 0)
        return -1;
    /* The container's root opens it for writing before it becomes the
     * process's user. */
    if (mkfifoat(e->dir_fd, FIFO_FILE, 0600) < 0 ||
        fchownat(e->dir_fd, FIFO_FILE, fifo_owner, fifo_group, AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(err, errno, "exec fifo");
    if (mkdirat(e->dir_fd, ROOTFS_DIR, 0755) < 0)
        return rr_fail(err, errno, "rootfs directory");
    if (keep_config(e, err) < 0 || keep_notes(e, err) < 0 || engine_record(e, 0, err) < 0)
        return -1;
    cgroup_scope_of(root, scope, sizeof(scope));
    r = cgroup_create(&e->p, scope, e->o->id, &e->cg, &warnings, err);
    for (size_t i = 0; i < warnings.n; i++)
        log_msg(LOG_WARN, "%s", warnings.v[i]);
    strv_free(&warnings);
    if (r < 0 || device_cgroup(e, root, scope, err) < 0)
        return -1;
    return engine_record(e, 0, err);
}
