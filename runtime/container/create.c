/* revrun create: from a bundle (or an in-memory config) to a container whose
 * pid 1 waits for start. The monitor does the work; this side records the
 * state once the monitor says the container is ready, and cleans up when it
 * says why it is not. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/cleanup.h"
#include "common/crashpoint.h"
#include "common/escape.h"
#include "common/fsutil.h"
#include "runtime/container/backend.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/rlimits.h"
#include "runtime/container/console.h"
#include "runtime/container/container.h"
#include "runtime/confine/landlock.h"
#include "runtime/container/log.h"
#include "runtime/container/monitor.h"
#include "common/proc.h"
#include "runtime/confine/profile/profile.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"
#include "runtime/container/engine.h"
#include "runtime/container/idalloc.h"
#include "runtime/container/passfds.h"

struct creation {
    const struct rr_ctx *ctx;
    const struct create_opts *o;
    struct rr_config cfg;       /* loaded from the bundle */
    const struct rr_config *use; /* cfg or o->cfg */
    struct profile profile;
    struct cgroup_plan cg;
    char bundle[PATH_MAX];
    char state_path[PATH_MAX]; /* absolute: the monitor and pid 1 reopen by it */
    int root_fd;
    int dir_fd;
    int lock_fd;
    int bundle_fd;
    int console_fd;
    int id_fd;                 /* holds the container's host id (idalloc.h), or -1 */
    bool ids_taken;
    char real_root[PATH_MAX];  /* the state root, as the host id record names it */
    pid_t monitor;
    struct rr_state extra; /* rootfs and annotations, for `state` */
    bool engine; /* handed to engine_create, which cleans up after itself */
};

/* What `state` reports beyond revrun's own record: the bundle's root.path
 * made absolute, and the config's annotations (read from the same file
 * config_load read; they inform, they decide nothing). */
static int state_extras_load(struct creation *c, struct rr_error *err)
{
    struct json_node *root = NULL;
    const struct json_node *a;
    const char *rp = c->use->root.path;
    char buf[PATH_MAX];

    if (rp[0] == '/')
        snprintf(buf, sizeof(buf), "%s", rp);
    else if (c->o->cfg != NULL)
        snprintf(buf, sizeof(buf), "%s/%s/%s", c->state_path, BUNDLE_DIR, rp);
    else
        snprintf(buf, sizeof(buf), "%s/%s", c->bundle, rp);
    c->extra.rootfs = strdup(buf);
    if (c->extra.rootfs == NULL)
        return rr_fail(err, ENOMEM, "state");
    if (c->o->cfg != NULL)
        return 0;
    if (json_parse_file(c->bundle_fd, "config.json", &json_limits_config, &root, err) < 0)
        return rr_wrap(err, "bundle %s", c->bundle);
    a = json_get(root, "annotations");
    for (size_t i = 0; a != NULL && a->type == JSON_OBJECT && i < a->u.object.n; i++) {
        const struct json_node *v = a->u.object.values[i];
        if (v->type == JSON_STRING &&
            state_add_annotation(&c->extra, a->u.object.keys[i], v->u.string.s) < 0) {
            json_free(root);
            return rr_fail(err, ENOMEM, "state");
        }
    }
    json_free(root);
    return 0;
}

/* For an in-memory config: <state>/bundle/{config.json,rootfs/}. */
static int write_bundle(struct creation *c, struct rr_error *err)
{
    _cleanup_free_ char *json = NULL;

    if (config_to_json(c->o->cfg, &json, err) < 0)
        return -1;
    if (mkdirat(c->dir_fd, BUNDLE_DIR, 0700) < 0)
        return rr_fail(err, errno, "bundle directory");
    c->bundle_fd = openat(c->dir_fd, BUNDLE_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->bundle_fd < 0)
        return rr_fail(err, errno, "bundle directory");
    if (rr_write_atomic(c->bundle_fd, "config.json", json, strlen(json), 0600, err) < 0)
        return -1;
    if (mkdirat(c->bundle_fd, c->o->cfg->root.path, 0700) < 0)
        return rr_fail(err, errno, "bundle rootfs");
    return 0;
}

/* The config as it was at create, for the stages that come after (the
 * write-back policy): a bundle edited later changes nothing. */
static int snapshot_config(struct creation *c, struct rr_error *err)
{
    _cleanup_free_ char *json = NULL;

    if (config_to_json(c->use, &json, err) < 0)
        return -1;
    return rr_write_atomic(c->dir_fd, CONFIG_FILE, json, strlen(json), 0600, err);
}

static int load_bundle(struct creation *c, struct rr_error *err)
{
    if (realpath(c->o->bundle, c->bundle) == NULL)
        return rr_fail(err, errno, "bundle %s", c->o->bundle);
    c->bundle_fd = open(c->bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c->bundle_fd < 0)
        return rr_fail(err, errno, "bundle %s", c->bundle);
    if (config_load(c->bundle_fd, &c->cfg, err) < 0)
        return rr_wrap(err, "bundle %s", c->bundle);
    c->use = &c->cfg;
    return 0;
}

static int check_free_space(const struct creation *c, struct rr_error *err)
{
    struct statvfs sv;
    uint64_t free_bytes;

    if (fstatvfs(c->root_fd, &sv) < 0)
        return rr_fail(err, errno, "statvfs %s", c->ctx->root);
    free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
    if (free_bytes < c->use->revrun.min_free_space)
        return rr_fail(err, ENOSPC,
                       "only %llu MiB free under %s, below revrun.minFreeSpace (%llu MiB)",
                       (unsigned long long)(free_bytes >> 20), c->ctx->root,
                       (unsigned long long)(c->use->revrun.min_free_space >> 20));
    return 0;
}

/* As root, the container's own host uid/gid (profile.h HOST_IDS_*): taken
 * once its state directory exists (so a reclaimer never takes it for a
 * crashed run's) and before anything is made for that identity. */
static int take_host_ids(struct creation *c, struct rr_error *err)
{
    struct profile *p = &c->profile;
    const struct rr_id_range *r = &p->host_range;
    bool uid_in = p->host_uid >= r->first && p->host_uid - r->first < r->count;
    uint32_t id = uid_in ? p->host_uid : p->host_gid;

    if (p->host_ids == HOST_IDS_FIXED)
        return 0;
    if (idalloc_take(r, p->host_ids == HOST_IDS_EXACT, &id, c->real_root, c->o->id, &c->id_fd,
                     err) < 0)
        return rr_wrap(err, "the container's host uid/gid");
    c->ids_taken = true;
    if (p->host_ids == HOST_IDS_ANY)
        p->host_uid = p->host_gid = id;
    return 0;
}

static int make_state_dir(struct creation *c, struct rr_error *err)
{
    c->root_fd = container_root(c->ctx, true, err);
    if (c->root_fd < 0 || check_free_space(c, err) < 0)
        return -1;
    if (realpath(c->ctx->root, c->real_root) == NULL)
        return rr_fail(err, errno, "state root %s", c->ctx->root);
    if ((size_t)snprintf(c->state_path, sizeof(c->state_path), "%s/%s", c->real_root,
                         c->o->id) >= sizeof(c->state_path))
        return rr_fail(err, ENAMETOOLONG, "state root");
    c->dir_fd = statedir_create(c->root_fd, c->o->id, err);
    if (c->dir_fd < 0)
        return -1;
    c->lock_fd = statedir_lock(c->dir_fd, err);
    if (c->lock_fd < 0)
        return -1;
    if (take_host_ids(c, err) < 0)
        return -1;
    crash_point("create:host-id");
    if (mkfifoat(c->dir_fd, FIFO_FILE, 0600) < 0)
        return rr_fail(err, errno, "exec fifo");
    /* pid 1 opens it as the container user. */
    if (!c->ctx->rootless &&
        fchownat(c->dir_fd, FIFO_FILE, c->profile.host_uid, c->profile.host_gid,
                 AT_SYMLINK_NOFOLLOW) < 0)
        return rr_fail(err, errno, "exec fifo owner");
    if (mkdirat(c->dir_fd, STORE_DIR, 0700) < 0)
        return rr_fail(err, errno, "store directory");
    if (mkdirat(c->dir_fd, ROOTFS_DIR, 0755) < 0)
        return rr_fail(err, errno, "rootfs directory");
    return 0;
}

static int fork_monitor(struct creation *c, int *cli_fd, struct rr_error *err)
{
    int sp[2];
    int rootfs, fifo;

    /* root.path must exist as OCI bundles have it, but its content is not
     * used: the root is assembled from mounts on a tmpfs attached at the
     * state directory's rootfs/, a path no user of the bundle can swap. */
    rootfs = openat(c->bundle_fd, c->use->root.path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfs < 0)
        return rr_fail(err, errno, "root.path %s (an empty directory in the bundle is enough)",
                       c->use->root.path);
    close(rootfs);
    rootfs = openat(c->dir_fd, ROOTFS_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (rootfs < 0)
        return rr_fail(err, errno, "rootfs directory");
    fifo = openat(c->dir_fd, FIFO_FILE, O_PATH | O_CLOEXEC | O_NOFOLLOW);
    if (fifo < 0) {
        close(rootfs);
        return rr_fail(err, errno, "exec fifo");
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
        close(rootfs);
        close(fifo);
        return rr_fail(err, errno, "socketpair");
    }
    c->monitor = fork();
    if (c->monitor < 0) {
        rr_fail(err, errno, "fork the monitor");
    } else if (c->monitor == 0) {
        struct monitor_args ma = {.p = &c->profile, .id = c->o->id, .state_path = c->state_path,
                                  .cli_fd = sp[1],
                                  .state_dir = c->dir_fd, .rootfs_dir = rootfs,
                                  .fifo_fd = fifo, .attached = c->o->attached,
                                  .cgroup = &c->cg, .console_fd = c->console_fd};
        /* id_fd: the monitor holds the container's host id while it lives. */
        const int keep[] = {sp[1], c->dir_fd, rootfs, fifo, c->console_fd, c->id_fd};
        /* The lock, the log and everything else of this command stay here. */
        rr_close_all_except(keep, sizeof(keep) / sizeof(keep[0]));
        monitor_main(&ma);
    }
    close(sp[1]);
    close(rootfs);
    close(fifo);
    if (c->monitor < 0) {
        close(sp[0]);
        return -1;
    }
    *cli_fd = sp[0];
    return 0;
}

/* Wait for the monitor's word: warnings to show, then ready or an error. */
static int await_created(int fd, struct sync_msg *m, struct rr_error *err)
{
    for (;;) {
        int r = sync_recv(fd, m);
        if (r < 0)
            return rr_fail(err, errno, "waiting for the monitor");
        if (r == 0)
            return rr_fail(err, EPIPE, "the monitor ended without a word");
        if (m->type == SYNC_WARNING) {
            log_msg(LOG_WARN, "%s", m->text);
            continue;
        }
        if (m->type == SYNC_ERROR)
            return rr_fail(err, m->errnum, "%s", m->text);
        if (m->type == SYNC_CREATED)
            return 0;
        return rr_fail(err, EPROTO, "unexpected message %u from the monitor", m->type);
    }
}

/* Limits first: a host that cannot enforce them refuses before anything
 * else exists. The plan is on disk (a state.json without a pid: status
 * "creating") before any process, so a crash from here on is cleaned by
 * destroy or sweep with the cgroup's path in hand. */
static int record_state(struct creation *c, const struct sync_msg *m, struct rr_error *err);

static int make_cgroup(struct creation *c, struct rr_error *err)
{
    struct rr_strv warnings = {0};
    struct sync_msg none = {0};

    char root[PATH_MAX], scope[32];

    if (realpath(c->ctx->root, root) == NULL)
        return rr_fail(err, errno, "state root %s", c->ctx->root);
    cgroup_scope_of(root, scope, sizeof(scope));
    if (cgroup_create(&c->profile, scope, c->o->id, &c->cg, &warnings, err) < 0) {
        strv_free(&warnings);
        return -1;
    }
    for (size_t i = 0; i < warnings.n; i++)
        log_msg(LOG_WARN, "%s", warnings.v[i]);
    strv_free(&warnings);
    if (c->o->limits_skipped != NULL)
        *c->o->limits_skipped = c->cg.skipped;
    return record_state(c, &none, err);
}

static int record_state(struct creation *c, const struct sync_msg *m, struct rr_error *err)
{
    struct rr_state s = {0};
    struct proc_ref mon;
    char created[64];
    char bundle[PATH_MAX];

    mon = (struct proc_ref){0, 0};
    if (c->monitor > 0 && proc_ref_of(c->monitor, &mon, err) < 0)
        return -1;
    rr_now_rfc3339(created, sizeof(created));
    if (c->o->cfg != NULL)
        snprintf(bundle, sizeof(bundle), "%s/%s/%s", c->ctx->root, c->o->id, BUNDLE_DIR);
    else
        snprintf(bundle, sizeof(bundle), "%s", c->bundle);
    snprintf(s.id, sizeof(s.id), "%s", c->o->id);
    s.bundle = bundle;
    s.lower = (char *)c->profile.lower;
    s.store = NULL;
    s.backend = m->text[0] != '\0' ? (char *)m->text : "native"; /* the monitor's choice */
    s.created = created;
    s.pid = m->value;
    s.pid_start = (uint64_t)m->value2;
    s.monitor_pid = mon.pid;
    s.monitor_start = mon.start_time;
    s.rootless = c->ctx->rootless;
    s.owner = (uint32_t)geteuid();
    s.rootfs = c->extra.rootfs;
    s.annotations = c->extra.annotations;
    s.n_annotations = c->extra.n_annotations;
    if (c->cg.version != CG_NONE) {
        s.cgroup = c->cg.path;
        s.cgroup_version = (char *)cgroup_version_name(c->cg.version);
    }
    return statedir_write_state(c->dir_fd, &s, err);
}

static int write_pid_file(const char *path, int64_t pid, struct rr_error *err)
{
    char dir[PATH_MAX], text[32];
    const char *slash = strrchr(path, '/');
    _cleanup_close_ int dfd = -1;

    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path)
        snprintf(dir, sizeof(dir), "/");
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return rr_fail(err, errno, "pid file directory %s", dir);
    snprintf(text, sizeof(text), "%lld", (long long)pid);
    return rr_write_atomic(dfd, slash ? slash + 1 : path, text, strlen(text), 0644, err);
}

/* Undo a failed create: the monitor has ended (or is told to), the state
 * directory goes. */
static void abandon(struct creation *c)
{
    struct rr_error ignored;

    if (c->monitor > 0) {
        kill(c->monitor, SIGKILL);
        while (waitpid(c->monitor, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    /* A create that failed on EMFILE must still be able to clean up: the
     * fds removal does not need go first (the lock stays held). */
    rr_closep(&c->bundle_fd);
    c->bundle_fd = -1;
    rr_closep(&c->console_fd);
    c->console_fd = -1;
    if (c->cg.version != CG_NONE)
        cgroup_remove(c->cg.version, c->cg.path, &ignored);
    /* Before the state directory: until then no reclaimer takes the id. */
    if (c->ids_taken)
        idalloc_release(c->real_root, c->o->id, &ignored);
    if (c->dir_fd >= 0)
        statedir_remove(c->root_fd, c->o->id, &ignored);
}

/* What the profile needs of this host and this caller beyond cgroups: a
 * console socket exactly when the process has a terminal; Landlock unless
 * best-effort. */
static int judge_extras(struct creation *c, struct rr_error *err)
{
    char note[512];

    if (c->profile.terminal != (c->o->console_socket != NULL))
        return rr_fail(err, EINVAL, c->profile.terminal
                                        ? "process.terminal needs `revrun create "
                                          "--console-socket PATH`"
                                        : "--console-socket needs process.terminal: true");
    if (c->o->console_socket != NULL &&
        (c->console_fd = console_connect(c->o->console_socket, err)) < 0)
        return -1;
    if (!c->ctx->rootless && c->profile.host_ids == HOST_IDS_FIXED &&
        c->profile.cfg->linux.n_uid_mappings == 0 &&
        c->profile.host_uid != c->profile.host_range.first)
        log_msg(LOG_WARN,
                "revrun runs as root inside a user namespace that does not map its "
                "dedicated host id range %u-%u: the container user is %u:%u here, the top of "
                "the range this namespace maps, shared by every container revrun runs here",
                c->profile.host_range.first,
                c->profile.host_range.first + (c->profile.host_range.count - 1),
                (unsigned)c->profile.host_uid, (unsigned)c->profile.host_gid);
    if (rlimits_judge_caller(&c->profile, err) < 0)
        return -1;
    if (landlock_judge_host(&c->profile, note, sizeof(note), err) < 0)
        return -1;
    if (note[0] != '\0')
        log_msg(LOG_WARN, "%s", note);
    return 0;
}

/* A worktree checkout: one line says whether git works inside, and why
 * not (the names are the checkout's: escaped). The caller may keep it. */
static void note_git_common(struct creation *c)
{
    const struct profile *p = &c->profile;
    char esc[2048], line[2304];

    if (p->git_common.shown) {
        rr_escape(p->git_common.dest, strlen(p->git_common.dest), esc, sizeof(esc));
        snprintf(line, sizeof(line),
                 "git: a worktree checkout: its main git directory is shown inside at %s "
                 "(read-only; what git writes there is scratch, never applied; the other "
                 "worktrees and the main checkout's index and stash hidden; its object store is "
                 "shown whole: anything ever staged or stashed in any worktree is readable; "
                 "revrun.git.worktree \"hide\" shows none of it)",
                 esc);
        log_msg(LOG_INFO, "%s", line);
    } else if (p->git_common.why[0] != '\0') {
        rr_escape(p->git_common.why, strlen(p->git_common.why), esc, sizeof(esc));
        snprintf(line, sizeof(line),
                 "git: a worktree checkout, and git will not work inside: %s (its main git "
                 "directory is not shown)",
                 esc);
        log_msg(LOG_WARN, "%s", line);
    } else {
        return;
    }
    if (c->o->git_note != NULL)
        snprintf(c->o->git_note, c->o->git_note_len, "%s", line);
}

static int create_steps(struct creation *c, int *cli_fd, struct sync_msg *m,
                        struct rr_error *err)
{
    if (!rr_id_valid(c->o->id))
        return rr_fail(err, EINVAL,
                       "invalid container ID (1-64 of [A-Za-z0-9_.-], starting with a letter "
                       "or digit)");
    if (c->o->cfg != NULL)
        c->use = c->o->cfg;
    else if (load_bundle(c, err) < 0)
        return -1;
    if (c->o->preserve_fds > 0 && !c->use->engine)
        return rr_fail(err, EINVAL, "--preserve-fds %d: only an engine's bundle takes fds "
                                    "(revrun's own process gets 0-2 alone)", c->o->preserve_fds);
    /* An engine's bundle: no monitor, the engine's shim owns the process. */
    if (c->use->engine) {
        c->engine = true;
        return engine_create(c->ctx, c->o, c->use, c->bundle, c->bundle_fd, err);
    }
    if (profile_build(c->use, c->ctx->rootless, &c->profile, err) < 0 ||
        judge_extras(c, err) < 0)
        return -1;
    note_git_common(c);
    if (make_state_dir(c, err) < 0)
        return -1;
    crash_point("create:state-dir");
    if (c->o->cfg != NULL && write_bundle(c, err) < 0)
        return -1;
    if (state_extras_load(c, err) < 0)
        return -1;
    if (snapshot_config(c, err) < 0 || make_cgroup(c, err) < 0)
        return -1;
    crash_point("create:cgroup");
    if (fork_monitor(c, cli_fd, err) < 0)
        return -1;
    /* The monitor is on record before it does anything, so a destroy or
     * sweep after a crash here can stop it. */
    struct sync_msg none = {0};
    if (record_state(c, &none, err) < 0)
        return -1;
    crash_point("create:monitor");
    if (await_created(*cli_fd, m, err) < 0)
        return -1;
    crash_point("create:ready");
    if (record_state(c, m, err) < 0)
        return -1;
    backend_log_choice(c->profile.backend, m->text);
    crash_point("create:recorded");
    if (c->o->pid_file != NULL && write_pid_file(c->o->pid_file, m->value, err) < 0)
        return -1;
    if (sync_send(*cli_fd, SYNC_ACK, 0, 0, NULL) < 0)
        return rr_fail(err, errno, "confirm to the monitor");
    return 0;
}

int container_create(const struct rr_ctx *ctx, const struct create_opts *o, int *attach_fd,
                     struct rr_error *err)
{
    struct creation c = {.ctx = ctx, .o = o, .root_fd = -1, .dir_fd = -1, .lock_fd = -1,
                         .bundle_fd = -1, .console_fd = -1, .id_fd = -1, .monitor = -1};
    struct sync_msg m;
    int cli_fd = -1;
    /* before anything is opened: see passfds_check */
    int r = passfds_check(o->preserve_fds, err) < 0 ? -1 : create_steps(&c, &cli_fd, &m, err);

    if (r < 0) {
        rr_wrap(err, "create %s", o->id);
        if (cli_fd >= 0)
            close(cli_fd);
        if (!(err->errnum == EEXIST && c.dir_fd < 0) && !c.engine)
            abandon(&c);
    } else if (o->attached && attach_fd != NULL) {
        *attach_fd = cli_fd;
    } else {
        close(cli_fd);
    }
    profile_free(&c.profile);
    state_free(&c.extra);
    if (c.use == &c.cfg)
        config_free(&c.cfg);
    if (c.lock_fd >= 0)
        close(c.lock_fd); /* after the state is on disk: others may look now */
    if (c.bundle_fd >= 0)
        close(c.bundle_fd);
    if (c.console_fd >= 0)
        close(c.console_fd);
    if (c.id_fd >= 0)
        close(c.id_fd); /* the monitor has its own */
    if (c.dir_fd >= 0)
        close(c.dir_fd);
    if (c.root_fd >= 0)
        close(c.root_fd);
    return r;
}
