/* revrun create for an engine's bundle (containerd's runc shim, conmon,
 * docker): no monitor. This process opens what must be opened with the
 * caller's credentials (the image, the bind sources, namespaces given by
 * path), clones the container's process into revrun's namespaces, writes
 * its id maps, puts it in its cgroup, runs the host-side hooks, records the
 * state and the pid file, and exits: the process is then the child of the
 * caller's subreaper, as runc's is, and its wait status is the container's. */
#include "runtime/container/engine_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/cgroup_devices.h"
#include "runtime/confine/cgroup_freeze.h"
#include "runtime/container/console.h"
#include "runtime/container/engine_checkout.h"
#include "runtime/container/engine_ids.h"
#include "runtime/container/engine_hostfs.h"
#include "runtime/container/engine_rootstore.h"
#include "runtime/container/engine_init.h"
#include "runtime/container/engine_ns.h"
#include "runtime/container/hooks.h"
#include "runtime/container/log.h"
#include "common/proc.h"
#include "runtime/container/statedir.h"
#include "runtime/container/sync.h"


/* ---- what is opened with the caller's credentials ---- */

/* A bind's tree, cloned from its source as opened here; the profile says
 * whether that is one of the kubelet's volumes (idmapped as the
 * container's once its user namespace exists, idmap_volumes). */
static int open_bind(struct engine *e, size_t i, struct rr_error *err)
{
    const struct mount_plan *m = &e->p.mounts[i];
    _cleanup_close_ int src = open(m->source, O_PATH | O_CLOEXEC);

    if (src < 0)
        return rr_fail(err, errno, "mounts[%zu]: bind %s", i, m->source);
    e->bind_fds[i] = rr_clone_tree(src, "", m->recursive, m->attr, err);
    if (e->bind_fds[i] < 0)
        return rr_wrap(err, "mounts[%zu]: bind %s", i, m->source);
    e->bind_idmap[i] = profile_kubelet_volume(&e->p, src, m->source) == 1;
    if (!e->bind_idmap[i] && !(m->attr & MOUNT_ATTR_RDONLY))
        log_msg(LOG_INFO, "mounts[%zu]: bind %s: not one of the kubelet's volumes: its files keep "
                          "their host owners (the container's root is an unprivileged host id)",
                i, m->source);
    return 0;
}

/* The image: nosuid and nodev like every mount (its device nodes are
 * unusable: the device rules' floor), read-only at the pivot if asked, and
 * read-only from the start under a private upper. It must be the directory
 * the profile judged. The mount points it lacks are made in it, as runc
 * makes them, or in its upper, leaving it untouched. */
static int open_image(struct engine *e, struct rr_error *err)
{
    const struct profile *p = &e->p;
    struct stat st;
    mode_t old;
    int r;

    e->root_mfd = rr_clone_tree(AT_FDCWD, p->eng.root_path, true,
                                MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                    (p->eng.root_upper ? MOUNT_ATTR_RDONLY : 0),
                                err);
    if (e->root_mfd < 0)
        return rr_wrap(err, "root.path %s", p->eng.root_path);
    if (fstat(e->root_mfd, &st) < 0)
        return rr_fail(err, errno, "root.path %s", p->eng.root_path);
    if (st.st_dev != p->eng.root_dev || st.st_ino != p->eng.root_ino)
        return rr_fail(err, ESTALE, "root.path %s is no longer the directory judged",
                       p->eng.root_path);
    if (p->eng.root_upper)
        return engine_root_store_open(p, e->dir_fd, e->root_mfd, e->bind_fds, &e->root_store,
                                      err);
    /* revrun runs with umask 077; mount points must be searchable by the
     * container's users, as runc makes them (0755). */
    old = umask(022);
    r = rootfs_premake_engine(p, e->root_mfd, -1, e->bind_fds, err);
    umask(old);
    return r;
}

static int open_sources(struct engine *e, struct rr_error *err)
{
    const struct profile *p = &e->p;

    e->bind_fds = malloc((p->n_mounts + 1) * sizeof(int));
    e->bind_idmap = calloc(p->n_mounts + 1, sizeof(bool));
    if (e->bind_fds == NULL || e->bind_idmap == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    for (size_t i = 0; i < p->n_mounts; i++)
        e->bind_fds[i] = -1;
    for (size_t i = 0; i < p->n_mounts; i++) {
        const struct mount_plan *m = &p->mounts[i];
        if (m->kind != MOUNT_BIND)
            continue;
        if (open_bind(e, i, err) < 0)
            return -1;
    }
    if (engine_hostfs_make(p, &e->ns.joins, e->bind_fds, err) < 0 || open_image(e, err) < 0)
        return -1;
    e->mountpoint = openat(e->dir_fd, ROOTFS_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    e->fifo = openat(e->dir_fd, FIFO_FILE, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (e->mountpoint < 0 || e->fifo < 0)
        return rr_fail(err, errno, "state directory");
    return 0;
}

/* ---- the container's process ---- */

static int write_proc(pid_t pid, const char *file, const char *text, struct rr_error *err)
{
    char path[64];
    _cleanup_close_ int fd = -1;

    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || rr_write_all(fd, text, strlen(text)) < 0)
        return rr_fail(err, errno, "write %s", path);
    return 0;
}

static int write_map(pid_t pid, const char *file, const struct rr_id_mapping *m, size_t n,
                     struct rr_error *err)
{
    char text[8 * 40] = "";

    for (size_t i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%u %u %u\n",
                 m[i].container_id, m[i].host_id, m[i].size);
    return write_proc(pid, file, text, err);
}

/* The image seen through the container's mapping, as a user-namespaced
 * runc gives it: its root's files appear as the container's root, whose
 * writes land as the image's owners on disk. A filesystem that cannot be
 * idmapped keeps the host's owners (the container's root is then a
 * stranger to the image's root-owned files), said in one line. */
static void idmap_root(struct engine *e)
{
    char path[64];
    _cleanup_close_ int ns = -1;
    struct mount_attr ma = {.attr_set = MOUNT_ATTR_IDMAP};

    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)e->child);
    ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns >= 0) {
        ma.userns_fd = (uint64_t)ns;
        if (rr_mount_setattr(e->root_mfd, "", AT_EMPTY_PATH | AT_RECURSIVE, &ma) == 0)
            return;
    }
    log_msg(LOG_INFO, "tightened: root.path: not idmapped (%s): the image's files keep their "
                      "host owners", strerror(errno));
}

/* The kubelet's volumes through the container's mapping: its root owns
 * what the kubelet's root owns there, as under runc. A filesystem that
 * cannot be idmapped keeps its host owners, said in one line. */
static void idmap_volumes(struct engine *e)
{
    char path[64];
    _cleanup_close_ int ns = -1;

    snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)e->child);
    for (size_t i = 0; i < e->p.n_mounts; i++) {
        struct mount_attr ma = {.attr_set = MOUNT_ATTR_IDMAP};
        if (!e->bind_idmap[i])
            continue;
        if (ns < 0 && (ns = open(path, O_RDONLY | O_CLOEXEC)) < 0)
            break;
        ma.userns_fd = (uint64_t)ns;
        /* the volume's own mount only, never AT_RECURSIVE: what a recursive
         * bind brings along below it (another pod's secret under a
         * hostPath of the pods directory) was not judged and keeps its
         * host owners */
        if (rr_mount_setattr(e->bind_fds[i], "", AT_EMPTY_PATH, &ma) < 0)
            log_msg(LOG_INFO, "mounts[%zu]: the kubelet's volume %s: not idmapped (%s): its "
                              "files keep their host owners",
                    i, e->p.mounts[i].source, strerror(errno));
    }
}

/* In a pod: the child is in (its namespaces made); when it forked the
 * container's pid 1, that is the container's process from here on. */
static int pod_entered(struct engine *e, struct rr_error *err)
{
    struct sync_msg m;
    int r = sync_expect(e->sync_fd, SYNC_ENTERED, &m, err);

    if (r == 0 && m.value > 0) {
        while (waitpid(e->child, NULL, 0) < 0 && errno == EINTR)
            ;
        e->child = (pid_t)m.value;
        e->child_pidfd = rr_pidfd_open(e->child);
        if (e->child_pidfd < 0)
            return rr_fail(err, errno, "the container's pid 1 (%d)", (int)e->child);
    }
    return r;
}

/* What the host side sets on the process before it takes a step: its id
 * maps, its cgroup, its rlimits (root may raise a hard limit, the
 * container may not), its OOM score. */
static int place_child(struct engine *e, struct rr_error *err)
{
    const struct profile *p = &e->p;
    char text[32];

    /* in a pod the maps are the pod's user namespace's, written already */
    if (e->ns.pod.joined) {
        if (pod_entered(e, err) < 0)
            return -1;
    } else if (write_map(e->child, "uid_map", p->eng.uid_map, p->eng.n_uid_map, err) < 0 ||
               write_map(e->child, "gid_map", p->eng.gid_map, p->eng.n_gid_map, err) < 0) {
        return rr_wrap(err, "user namespace");
    }
    if (cgroup_join(&e->cg, e->child, err) < 0)
        return -1;
    if (p->eng.device_rules.n > 0 &&
        cgroup_devices_v1_join(e->cg.path, e->child, err) < 0)
        return -1;
    if (p->eng.idmap_root)
        idmap_root(e);
    idmap_volumes(e);
    /* Only a raise above what the child inherited (ours) is root's to make;
     * the child sets every rlimit itself (engine_init). */
    for (size_t i = 0; i < p->n_rlimits; i++) {
        struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};
        struct rlimit own;
        if (getrlimit(p->rlimits[i].resource, &own) < 0)
            return rr_fail(err, errno, "process.rlimits[%zu]", i);
        if (own.rlim_max != RLIM_INFINITY &&
            (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > own.rlim_max) &&
            prlimit(e->child, p->rlimits[i].resource, &rl, NULL) < 0)
            return rr_fail(err, errno, "process.rlimits[%zu]", i);
    }
    if (p->eng.has_oom_score_adj) {
        snprintf(text, sizeof(text), "%d", p->eng.oom_score_adj);
        if (write_proc(e->child, "oom_score_adj", text, err) < 0)
            return rr_wrap(err, "process.oomScoreAdj");
    }
    return 0;
}

static __attribute__((noreturn)) void child_main(struct engine *e, int sync_fd)
{
    struct engine_init_args a = {
        .p = &e->p, .id = e->o->id, .bundle = e->bundle, .state_path = e->state_path,
        .sync_fd = sync_fd, .fifo_fd = e->fifo, .console_fd = e->console_fd, .seccomp = &e->sc,
        .preserve_fds = e->o->preserve_fds, .record_fd = e->rec.init_end,
        .fds = {.mountpoint = e->mountpoint, .root_mfd = e->root_mfd, .bind_fds = e->bind_fds,
                .git_lower_mfd = -1, .git_upper_fd = -1, .git_work_fd = -1,
                .lower_mfd = e->ck.lower_mfd, .checkout_mfd = engine_checkout_view(&e->ck),
                .upper_fd = e->ck.store.upper_fd, .work_fd = e->ck.store.work_fd,
                .out_mfd = -1, .root_upper_fd = e->root_store.upper_fd,
                .root_work_fd = e->root_store.work_fd}};
    int *keep = malloc((e->p.n_mounts + (size_t)e->o->preserve_fds + 12) * sizeof(int));
    size_t n = 0;

    if (keep == NULL)
        _exit(1);
    keep[n++] = sync_fd;
    keep[n++] = e->fifo;
    keep[n++] = e->mountpoint;
    keep[n++] = e->root_mfd;
    keep[n++] = e->console_fd;
    keep[n++] = e->ck.lower_mfd;
    keep[n++] = engine_checkout_view(&e->ck);
    keep[n++] = e->ck.store.upper_fd;
    keep[n++] = e->ck.store.work_fd;
    keep[n++] = e->root_store.upper_fd;
    keep[n++] = e->root_store.work_fd;
    keep[n++] = e->rec.init_end;
    for (size_t i = 0; i < e->p.n_mounts; i++)
        keep[n++] = e->bind_fds[i];
    for (int fd = 3; fd < 3 + e->o->preserve_fds; fd++)
        keep[n++] = fd;
    /* Nothing of create's reaches the container: not the lock, the state
     * root, the bundle or the log. */
    rr_close_all_except(keep, n);
    free(keep);
    engine_init_main(&a);
}

/* The child of a pod's container: into the pod's user namespace first,
 * then namespaces of its own made there; create hears when it is in. A pid
 * namespace of its own has its pid 1 in the next process: this one forks
 * the container's process, says its pid (this one's pid namespace is the
 * host's) and ends; create reaps it, the container's process goes to the
 * engine's subreaper as runc's does (its init is a grandchild too). */
static void enter_pod(struct engine *e, int sync_fd)
{
    struct rr_error err = {0};
    pid_t c = 0;

    if (engine_ns_child_pod(&e->ns, e->p.clone_flags, &err) < 0) {
        sync_send_error(sync_fd, &err);
        _exit(1);
    }
    if ((e->p.clone_flags & CLONE_NEWPID) && (c = fork()) < 0) {
        rr_fail(&err, errno, "fork the container's pid 1 in the pod's user namespace");
        sync_send_error(sync_fd, &err);
        _exit(1);
    }
    if (c == 0 && !(e->p.clone_flags & CLONE_NEWPID) &&
        sync_send(sync_fd, SYNC_ENTERED, 0, 0, NULL) < 0)
        _exit(1);
    if (c == 0)
        return;
    _exit(sync_send(sync_fd, SYNC_ENTERED, c, 0, NULL) < 0 ? 1 : 0);
}

static int spawn(struct engine *e, struct rr_error *err)
{
    bool pod = e->ns.pod.joined;
    int sp[2];

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
        return rr_fail(err, errno, "socketpair");
    e->sync_fd = sp[0];
    if (engine_ns_enter(&e->ns, err) < 0) {
        close(sp[1]);
        engine_ns_leave(&e->ns, err);
        return -1;
    }
    /* Sysctls of a joined namespace, from inside it, as root of the host. */
    if (e->p.eng.sysctl_joined.n > 0 && engine_write_sysctls(&e->p.eng.sysctl_joined, err) < 0) {
        close(sp[1]);
        engine_ns_leave(&e->ns, err);
        return -1;
    }
    e->child = pod ? engine_clone_owned(0, 0)
                   : engine_clone_owned(e->p.clone_flags, e->p.eng.ns_owner);
    if (e->child == 0) {
        close(sp[0]);
        if (pod)
            enter_pod(e, sp[1]);
        child_main(e, sp[1]);
    }
    int saved = errno;
    close(sp[1]);
    /* The hooks and everything after run in revrun's own namespaces. */
    if (engine_ns_leave(&e->ns, err) < 0)
        return -1;
    if (e->child < 0)
        return rr_fail(err, saved, "clone the container (namespaces)");
    return 0;
}

static int hooks_now(struct engine *e, enum rr_hook_kind kind, struct rr_error *err)
{
    _cleanup_free_ char *state = NULL;

    if (e->cfg->n_hooks[kind] == 0)
        return 0;
    /* "created": the runtime spec's status after its lifecycle's step 2
     * (the environment made), which prestart and createRuntime follow */
    if (hooks_state_json(e->o->id, "created", e->child, e->bundle, &e->cfg->annotations, &state,
                         err) < 0)
        return -1;
    return hooks_run(e->cfg, kind, state, err);
}

static int write_pid_file(const char *path, pid_t pid, struct rr_error *err)
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
    snprintf(text, sizeof(text), "%d", (int)pid);
    return rr_write_atomic(dfd, slash ? slash + 1 : path, text, strlen(text), 0644, err);
}

static int steps(struct engine *e, struct rr_error *err)
{
    struct sync_msg m;
    char root[PATH_MAX] = "";

    /* As root, the state root made (as engine_make_state needs it) before its path
     * names the block's record; rootless, the profile refuses first. */
    if (!e->ctx->rootless) {
        e->root_fd = container_root(e->ctx, true, err);
        if (e->root_fd < 0)
            return -1;
        if (realpath(e->ctx->root, root) == NULL)
            return rr_fail(err, errno, "state root %s", e->ctx->root);
    }
    /* The namespaces it joins, opened once: a pod's user namespace and ids
     * are joined with them (engine_pod.h), else it gets its own block,
     * held (flock) while create runs, then by the container's init. */
    if (!e->ctx->rootless && engine_ns_open(&e->ns, e->cfg, e->root_fd, e->o->id, err) < 0)
        return -1;
    if (e->ns.pod.joined) {
        e->pod = (struct profile_pod){e->ns.pod.owner,       e->ns.pod.uid_map,
                                      e->ns.pod.gid_map,     e->ns.pod.n_uid_map,
                                      e->ns.pod.n_gid_map,   e->ns.pod.net_host_owned};
        if (profile_build_engine_pod(e->cfg, e->bundle, PROFILE_POLICY_FILE, 0, &e->pod, &e->p,
                                     err) < 0)
            return -1;
        /* a holder of the pod's block too: kept while any of its containers lives */
        if (engine_ids_join(e->ns.pod.uid_map, e->ns.pod.n_uid_map, e->ns.pod.userns_fd,
                            PROFILE_POLICY_FILE, root, e->o->id, &e->ids, err) < 0)
            return -1;
    } else if (engine_ids_take(e->cfg, e->ctx->rootless, PROFILE_POLICY_FILE, root, e->o->id,
                               &e->ids, err) < 0 ||
               profile_build_engine_at(e->cfg, e->bundle, PROFILE_POLICY_FILE, e->ids.base,
                                       &e->p, err) < 0) {
        return -1;
    }
    /* --systemd-cgroup: slice:prefix:name, placed where systemd would */
    if (e->ctx->systemd_cgroup && e->cfg->linux.cgroups_path != NULL &&
        strchr(e->cfg->linux.cgroups_path, ':') != NULL) {
        if (cgroup_systemd_path(e->cfg->linux.cgroups_path, e->p.cgroups_buf,
                                sizeof(e->p.cgroups_buf), err) < 0)
            return -1;
        e->p.cgroups_path = e->p.cgroups_buf;
        log_msg(LOG_INFO, "linux.cgroupsPath %s (systemd) is cgroup %s", e->cfg->linux.cgroups_path,
                e->p.cgroups_path);
    }
    for (size_t i = 0; i < e->p.notes.n; i++)
        log_msg(LOG_INFO, "tightened: %s", e->p.notes.v[i]);
    if (e->p.terminal != (e->o->console_socket != NULL))
        return rr_fail(err, EINVAL, e->p.terminal ? "process.terminal needs --console-socket"
                                                  : "--console-socket needs process.terminal");
    if (e->o->console_socket != NULL &&
        (e->console_fd = console_connect(e->o->console_socket, err)) < 0)
        return -1;
    if (seccomp_compile(&e->p, &e->sc, err) < 0)
        return -1;
    if (e->p.record_execs && engine_recorder_prepare(&e->rec, err) < 0)
        return -1;
    if (engine_make_state(e, err) < 0 || open_sources(e, err) < 0 ||
        engine_checkout_open(&e->p, e->dir_fd, e->o->id, &e->cg, &e->ck, err) < 0 ||
        engine_ns_check_sysctls(&e->ns, &e->p.eng.sysctl_joined, err) < 0 ||
        spawn(e, err) < 0 || engine_ids_hold(&e->ids, e->child, err) < 0)
        return -1;
    if (place_child(e, err) < 0)
        return -1;
    if (sync_send(e->sync_fd, SYNC_GO, e->child, 0, NULL) < 0)
        return rr_fail(err, errno, "release the container");
    /* prestart and createRuntime once the container's mounts are made,
     * before its pivot_root (the init asks); a failure ends the create and
     * abandon() destroys what was made. */
    if (sync_expect(e->sync_fd, SYNC_HOOKS, &m, err) < 0 ||
        hooks_now(e, RR_HOOK_PRESTART, err) < 0 || hooks_now(e, RR_HOOK_CREATE_RUNTIME, err) < 0)
        return -1;
    if (sync_send(e->sync_fd, SYNC_ACK, 0, 0, NULL) < 0)
        return rr_fail(err, errno, "resume the container after its hooks");
    if (sync_expect(e->sync_fd, SYNC_READY, &m, err) < 0)
        return -1;
    if (e->p.record_execs) {
        char kept[sizeof(e->p.eng.activity_root) + 128] = "";
        if (engine_recorder_start(&e->rec, e->dir_fd, e->child, e->o->id,
                                  e->p.eng.activity_root, err) < 0)
            return -1;
        if (e->p.eng.activity_root[0] != '\0')
            snprintf(kept, sizeof(kept), "; kept once it ends as %s/%s.jsonl",
                     e->p.eng.activity_root, e->o->id);
        log_msg(LOG_INFO, "activity: every exec of the container is recorded (policy %s): "
                          "revrun activity %s%s",
                e->cfg->ann.policy ? e->cfg->ann.policy : "engine", e->o->id, kept);
    }
    if (engine_record(e, e->child, err) < 0)
        return -1;
    if (e->o->pid_file != NULL && write_pid_file(e->o->pid_file, e->child, err) < 0)
        return -1;
    return 0;
}

static void abandon(struct engine *e)
{
    struct rr_error ignored;

    if (e->child_pidfd >= 0) {
        rr_pidfd_send_signal(e->child_pidfd, SIGKILL);
    } else if (e->child > 0) {
        kill(e->child, SIGKILL);
        while (waitpid(e->child, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (e->cg.version != CG_NONE)
        cgroup_remove(e->cg.version, e->cg.path, &ignored);
    if (e->dir_fd >= 0) {
        char dir[4096];
        if (engine_checkout_export_dir(e->dir_fd, dir, sizeof(dir), &ignored) == 0 &&
            dir[0] != '\0')
            engine_export_release(dir, e->o->id); /* the name this create claimed */
        engine_checkout_close(&e->ck, false);
        engine_checkout_unmount(e->dir_fd, &ignored);
        engine_root_store_unmount(e->dir_fd, &ignored);
        statedir_remove(e->root_fd, e->o->id, &ignored);
    }
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int engine_create(const struct rr_ctx *ctx, const struct create_opts *o,
                  const struct rr_config *cfg, const char *bundle, int bundle_fd,
                  struct rr_error *err)
{
    struct engine e = {.ctx = ctx, .o = o, .cfg = cfg, .bundle = bundle, .bundle_fd = bundle_fd,
                       .root_fd = -1, .dir_fd = -1, .lock_fd = -1, .console_fd = -1,
                       .root_mfd = -1, .mountpoint = -1, .fifo = -1, .child = -1, .child_pidfd = -1,
                       .sync_fd = -1, .ids = {.held = -1}, .root_store = {-1, -1},
                       .rec = {-1, -1}};
    int r;

    engine_ns_init(&e.ns);
    engine_checkout_init(&e.ck);
    if (o->attached) {
        r = rr_fail(err, EINVAL, "an engine's bundle (no `revrun` section) is run by its engine "
                                 "through create and start, not by `revrun run`");
    } else {
        r = steps(&e, err);
        if (r < 0 && !(err->errnum == EEXIST && e.dir_fd < 0))
            abandon(&e);
        if (r < 0)
            engine_ids_drop(&e.ids);
    }
    engine_ids_close(&e.ids);
    close_fd(&e.sync_fd);
    engine_recorder_close(&e.rec);
    close_fd(&e.child_pidfd);
    close_fd(&e.root_mfd);
    close_fd(&e.mountpoint);
    close_fd(&e.fifo);
    close_fd(&e.console_fd);
    for (size_t i = 0; e.bind_fds != NULL && i < e.p.n_mounts; i++)
        close_fd(&e.bind_fds[i]);
    free(e.bind_fds);
    free(e.bind_idmap);
    engine_ns_close(&e.ns);
    engine_checkout_close(&e.ck, r == 0);
    overlay_store_close(&e.root_store);
    seccomp_progs_free(&e.sc);
    profile_free(&e.p);
    close_fd(&e.lock_fd);
    close_fd(&e.dir_fd);
    close_fd(&e.root_fd);
    return r;
}
