#include "runtime/confine/libmnt.h"
#include "runtime/confine/cgroup.h"
#include "runtime/confine/cgroup_devices.h"

#include <dirent.h>
#include <stdint.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/proc.h"
#include "runtime/confine/cgroup_freeze.h"

static const char *const v1_names[3] = {"memory", "pids", "cpu"};

const char *cgroup_version_name(enum cg_version v)
{
    return v == CG_V1 ? "v1" : v == CG_V2 ? "v2" : "none";
}

enum cg_version cgroup_version_parse(const char *s)
{
    if (s == NULL)
        return CG_NONE;
    return strcmp(s, "v1") == 0 ? CG_V1 : strcmp(s, "v2") == 0 ? CG_V2 : CG_NONE;
}

int cg_write(int dirfd, const char *file, const char *value, struct rr_error *err)
{
    _cleanup_close_ int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0 || rr_write_all(fd, value, strlen(value)) < 0)
        return rr_fail(err, errno, "cgroup: write %s to %s", value, file);
    return 0;
}

int cg_read(int dirfd, const char *file, char *buf, size_t len)
{
    _cleanup_close_ int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, len - 1);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return 0;
}

int cg_mkdir(const char *mnt, const char *rel, struct rr_error *err)
{
    _cleanup_close_ int root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd;

    if (root < 0)
        return rr_fail(err, errno, "cgroup: open %s", mnt);
    /* The hierarchy is the kernel's: no symlinks in it, resolved beneath.
     * A concurrent destroy may remove an empty parent between two mkdirs:
     * try again a few times. */
    for (int attempt = 0;; attempt++) {
        fd = rr_mkdir_p_in_root(root, rel, 0755, err);
        if (fd >= 0 || err->errnum != ENOENT || attempt == 5)
            break;
    }
    if (fd < 0)
        return rr_wrap(err, "cgroup %s%s", mnt, rel);
    return fd;
}

bool cg_unwritable(const struct rr_error *err)
{
    return err->errnum == EROFS || err->errnum == EACCES || err->errnum == EPERM ||
           err->errnum == EBUSY;
}

int cg_unavailable(struct cgroup_plan *cg, const struct rr_error *err)
{
    rr_error_text(err, cg->why, sizeof(cg->why));
    cg->why_errno = err->errnum;
    cg->controllers = 0;
    cg->version = CG_NONE;
    return 0;
}

/* The container's own cgroup is made here, never joined: one that exists
 * belongs to another container (two configs naming the same
 * linux.cgroupsPath) or to a crashed run, and taking it would share its
 * limits and let this container's destroy kill its processes. */
int cg_mkdir_leaf(const char *mnt, const char *rel, struct rr_error *err)
{
    const char *slash = strrchr(rel, '/');
    const char *leaf = slash ? slash + 1 : rel;
    char parent[PATH_MAX];
    int r, fd;

    snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 0, rel);
    /* A concurrent destroy may remove the empty parent between the two
     * steps (see cg_mkdir): make both again. */
    for (int attempt = 0;; attempt++) {
        _cleanup_close_ int pfd = cg_mkdir(mnt, parent[0] != '\0' ? parent : "/", err);
        if (pfd < 0)
            return -1;
        r = mkdirat(pfd, leaf, 0755);
        if (r < 0 && errno == ENOENT && attempt < 5)
            continue;
        if (r < 0 && errno == EEXIST)
            return rr_fail(err, EEXIST,
                           "cgroup %s%s already exists: another container uses it (the same "
                           "linux.cgroupsPath?), or a crashed run left it (`revrun sweep`)",
                           mnt, rel);
        if (r < 0)
            return rr_fail(err, errno, "cgroup %s%s", mnt, rel);
        fd = openat(pfd, leaf, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return rr_fail(err, errno, "cgroup %s%s", mnt, rel);
        return fd;
    }
}

/* Mount points of the cgroup hierarchies, read from mountinfo with libmount. */
static int find_mounts(struct cgroup_host *h, struct rr_error *err)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;

    if (rr_libmnt_load(err) < 0)
        return -1;
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);

    while (tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *type = mnt_fs_get_fstype(fs);
        const char *target = mnt_fs_get_target(fs);
        const char *opts = mnt_fs_get_fs_options(fs);
        if (type == NULL || target == NULL)
            continue;
        if (strcmp(type, "cgroup2") == 0 && h->v2_mount[0] == '\0') {
            snprintf(h->v2_mount, sizeof(h->v2_mount), "%s", target);
        } else if (strcmp(type, "cgroup") == 0 && opts != NULL) {
            for (int i = 0; i < 3; i++)
                if (h->v1_mount[i][0] == '\0' &&
                    mnt_optstr_get_option(opts, v1_names[i], NULL, NULL) == 0)
                    snprintf(h->v1_mount[i], sizeof(h->v1_mount[i]), "%s", target);
        }
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
    return 0;
}

static unsigned parse_controllers(const char *list)
{
    unsigned c = 0;
    char buf[512];
    char *save = NULL;

    snprintf(buf, sizeof(buf), "%s", list);
    for (char *t = strtok_r(buf, " \n", &save); t != NULL; t = strtok_r(NULL, " \n", &save)) {
        if (strcmp(t, "memory") == 0)
            c |= CG_MEMORY;
        else if (strcmp(t, "pids") == 0)
            c |= CG_PIDS;
        else if (strcmp(t, "cpu") == 0)
            c |= CG_CPU;
    }
    return c;
}

int cgroup_host_probe(struct cgroup_host *h, struct rr_error *err)
{
    memset(h, 0, sizeof(*h));
    if (find_mounts(h, err) < 0)
        return -1;
    if (h->v2_mount[0] != '\0') {
        _cleanup_close_ int fd = open(h->v2_mount, O_PATH | O_DIRECTORY | O_CLOEXEC);
        char buf[512];
        if (fd >= 0 && cg_read(fd, "cgroup.controllers", buf, sizeof(buf)) == 0)
            h->v2_controllers = parse_controllers(buf);
    }
    if (h->v2_mount[0] != '\0' && h->v2_controllers == (CG_MEMORY | CG_PIDS | CG_CPU))
        h->preferred = CG_V2;
    else if (h->v1_mount[0][0] || h->v1_mount[1][0] || h->v1_mount[2][0])
        h->preferred = CG_V1;
    else if (h->v2_mount[0] != '\0')
        h->preferred = CG_V2;
    return 0;
}

static unsigned wanted(const struct profile *p)
{
    unsigned w = 0;

    if (p->resources.memory_limit != RR_UNSET)
        w |= CG_MEMORY;
    if (p->resources.pids_limit != RR_UNSET)
        w |= CG_PIDS;
    if (p->resources.cpu_quota != RR_UNSET)
        w |= CG_CPU;
    return w;
}

/* Engine mode: relative settings (cpu.shares, disableOOMKiller) applied
 * where the controller is had, never a reason to refuse the container. */
static unsigned wanted_soft(const struct profile *p)
{
    unsigned w = 0;

    if (!p->engine)
        return 0;
    if (p->resources.disable_oom_killer)
        w |= CG_MEMORY;
    if (p->resources.cpu_shares > 0)
        w |= CG_CPU;
    return w & ~wanted(p);
}

static int judge_soft(const struct profile *p, unsigned soft, const struct cgroup_plan *out,
                      struct rr_strv *warnings, struct rr_error *err)
{
    char msg[256];

    if ((soft & CG_CPU) && !(out->controllers & CG_CPU)) {
        snprintf(msg, sizeof(msg), "tightened: linux.resources.cpu.shares: %lld not applied (no "
                 "cpu controller here)", (long long)p->resources.cpu_shares);
        if (strv_push(warnings, msg) < 0)
            return rr_fail(err, ENOMEM, "warnings");
    }
    if ((soft & CG_MEMORY) && !(out->controllers & CG_MEMORY) &&
        strv_push(warnings, "tightened: linux.resources.memory.disableOOMKiller: not applied (no "
                            "memory controller here)") < 0)
        return rr_fail(err, ENOMEM, "warnings");
    return 0;
}

void cgroup_scope_of(const char *state_root, char *out, size_t len)
{
    uint64_t h = 1469598103934665603ULL;

    for (const unsigned char *c = (const unsigned char *)state_root; *c; c++) {
        h ^= *c;
        h *= 1099511628211ULL;
    }
    snprintf(out, len, "%016llx", (unsigned long long)h);
}

int cgroup_scope_dir(enum cg_version v, bool rootless, const char *scope, char *out, size_t len,
                     struct rr_error *err)
{
    char own[PATH_MAX];
    char *slash;

    if (!rootless) {
        snprintf(out, len, "/revrun/%s", scope);
        return 0;
    }
    if (v == CG_V1) {
        snprintf(out, len, "/revrun-%u/%s", (unsigned)getuid(), scope);
        return 0;
    }
    /* Unprivileged v2: next to our own cgroup, inside what was delegated. */
    if (cgroup_v2_own(own, sizeof(own), err) < 0)
        return -1;
    slash = strrchr(own, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(out, len, "%s/revrun-%s", own, scope);
    return 0;
}

const char *const cgroup_limit_names[3] = {"memory", "pids", "cpu"};

/* What could not be had: refused unless the config said best effort; the
 * skipped ones in one warning. */
static int judge_missing(const struct profile *p, unsigned want, struct cgroup_plan *out,
                         struct rr_strv *warnings, struct rr_error *err)
{
    const char *why = out->why[0] ? out->why : "no usable controller";
    char names[32] = "";
    char msg[512];

    for (int i = 0; i < 3; i++) {
        unsigned bit = 1u << i;
        const char *name = cgroup_limit_names[i];
        if (!(want & bit) || (out->controllers & bit))
            continue;
        if (!profile_best_effort(p, name))
            return rr_fail(err, EOPNOTSUPP,
                           "resource limits: this host cannot enforce the %s limit here (%s; "
                           "see `revrun check`); list \"%s\" in revrun.bestEffort "
                           "(review --best-effort %s) to run without it",
                           name, why, name, name);
        out->skipped |= bit;
        snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
                 names[0] ? ", " : "", name);
    }
    if (out->skipped == 0)
        return 0;
    snprintf(msg, sizeof(msg), "limits not enforced (best effort): %s: %s", names, why);
    if (strv_push(warnings, msg) < 0)
        return rr_fail(err, ENOMEM, "warnings");
    return 0;
}

int cgroup_create(const struct profile *p, const char *scope, const char *id,
                  struct cgroup_plan *out, struct rr_strv *warnings, struct rr_error *err)
{
    struct cgroup_host h;
    unsigned want = wanted(p), soft = wanted_soft(p);
    int r;

    memset(out, 0, sizeof(*out));
    if ((want | soft) == 0)
        return 0;
    cgroup_host_probe(&h, err);
    /* An engine's path was made absolute by the profile. */
    const char *cgp = p->engine ? p->cgroups_path : p->cfg->linux.cgroups_path;
    if (cgp != NULL && cgp[0] != '/')
        return rr_fail(err, EINVAL, "linux.cgroupsPath: must start with / (systemd slices are "
                                    "not supported)");
    if (h.preferred == CG_NONE) {
        snprintf(out->why, sizeof(out->why), "no cgroup hierarchy is mounted");
        out->why_errno = ENOENT;
    } else {
        if (cgp != NULL) {
            snprintf(out->path, sizeof(out->path), "%s", cgp);
        } else {
            char base[PATH_MAX];
            if (cgroup_scope_dir(h.preferred, p->rootless, scope, base, sizeof(base), err) < 0)
                return rr_wrap(err, "resource limits");
            if ((size_t)snprintf(out->path, sizeof(out->path), "%s/%s", base, id) >=
                sizeof(out->path))
                return rr_fail(err, ENAMETOOLONG, "cgroup path");
        }
        r = h.preferred == CG_V2 ? cgroup_v2_create(&h, p, want | soft, out, err)
                                 : cgroup_v1_create(&h, p, want | soft, out, err);
        if (r < 0 && out->version == CG_NONE)
            out->controllers = 0;
        if (r < 0)
            return rr_wrap(err, "resource limits");
    }
    if (judge_soft(p, soft, out, warnings, err) < 0)
        return -1;
    return judge_missing(p, want, out, warnings, err);
}

static const char *mount_for(const struct cgroup_host *h, enum cg_version v, int i)
{
    return v == CG_V2 ? h->v2_mount : h->v1_mount[i];
}

int cgroup_join(const struct cgroup_plan *cg, pid_t pid, struct rr_error *err)
{
    struct cgroup_host h;
    char pidtxt[32];

    if (cg->version == CG_NONE)
        return 0;
    cgroup_host_probe(&h, err);
    snprintf(pidtxt, sizeof(pidtxt), "%d", (int)pid);
    for (int i = 0; i < (cg->version == CG_V2 ? 1 : 3); i++) {
        if (cg->version == CG_V1 && !(cg->controllers & (1u << i)))
            continue;
        /* Opened, never created: if a sweep removed it meanwhile, joining
         * must fail rather than bring back a cgroup nobody records. */
        _cleanup_close_ int root = open(mount_for(&h, cg->version, i),
                                        O_PATH | O_DIRECTORY | O_CLOEXEC);
        _cleanup_close_ int fd =
            root < 0 ? -1 : rr_open_in_root(root, cg->path, O_PATH | O_DIRECTORY, true);
        if (fd < 0)
            return rr_fail(err, errno, "join cgroup %s", cg->path);
        if (cg_write(fd, "cgroup.procs", pidtxt, err) < 0) {
            /* The v1 cpu controller takes no real-time task into a group
             * without a real-time budget (cpu.rt_runtime_us 0). */
            int policy = err->errnum == EINVAL ? sched_getscheduler(pid) : -1;
            if (policy == SCHED_FIFO || policy == SCHED_RR)
                return rr_wrap(err, "join cgroup (revrun runs at a real-time priority, which "
                                    "a cgroup without a real-time budget refuses: run it at a "
                                    "normal one)");
            return rr_wrap(err, "join cgroup");
        }
    }
    return 0;
}

#define KILL_BATCH 512

/* Is pid in the newline-separated list? */
static bool listed(const char *list, pid_t pid)
{
    char want[16];
    size_t n = (size_t)snprintf(want, sizeof(want), "%d", (int)pid);

    for (const char *p = list; (p = strstr(p, want)) != NULL; p += n)
        if ((p == list || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

/* SIGKILL one batch of members. A pid read from cgroup.procs may be gone
 * and reused by a host process before we act, so each is pinned with a
 * pidfd first and signalled only if the list, read again after pinning,
 * still holds it: then the pidfd is that member's. Returns how many pids
 * were listed, or -1. */
static int kill_batch(int fd, char *buf, size_t len)
{
    char again[4096];
    pid_t pids[KILL_BATCH];
    int pfds[KILL_BATCH], n = 0, listed_n = 0;
    char *p, *save = NULL;

    if (cg_read(fd, "cgroup.procs", buf, len) < 0)
        return -1;
    for (p = strtok_r(buf, "\n", &save); p != NULL && n < KILL_BATCH;
         p = strtok_r(NULL, "\n", &save)) {
        listed_n++;
        pids[n] = (pid_t)atoi(p);
        if (pids[n] > 0 && (pfds[n] = rr_pidfd_open(pids[n])) >= 0)
            n++;
    }
    if (n > 0 && cg_read(fd, "cgroup.procs", again, sizeof(again)) == 0)
        for (int i = 0; i < n; i++)
            if (listed(again, pids[i]))
                (void)rr_pidfd_send_signal(pfds[i], SIGKILL); /* ESRCH: gone */
    for (int i = 0; i < n; i++)
        close(pfds[i]);
    return listed_n;
}

/* Kill every process still listed, until the cgroup is empty (bounded). */
static int kill_members(int fd, bool v2)
{
    char buf[4096];

    if (v2 && cg_write(fd, "cgroup.kill", "1", &(struct rr_error){0}) == 0) {
        /* the kernel does it; wait below for the list to empty */
    }
    for (int round = 0; round < 100; round++) {
        int listed_n = kill_batch(fd, buf, sizeof(buf));
        if (listed_n <= 0)
            return listed_n;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    errno = EBUSY;
    return -1;
}

int cg_kill_and_rmdir(const char *mnt, const char *rel, bool v2, struct rr_error *err)
{
    _cleanup_close_ int root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int fd = -1;

    if (root < 0)
        return 0;
    fd = rr_open_in_root(root, rel, O_RDONLY | O_DIRECTORY, true);
    if (fd < 0 && errno == ENOENT)
        return 0;
    if (fd < 0)
        return rr_fail(err, errno, "cgroup %s%s", mnt, rel);
    if (kill_members(fd, v2) < 0)
        return rr_fail(err, errno, "cgroup %s%s: processes remain", mnt, rel);
    /* rmdir through the parent, by the last component's name */
    {
        char parent[PATH_MAX];
        const char *slash = strrchr(rel, '/');
        snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 0, rel);
        _cleanup_close_ int pfd = rr_open_in_root(root, parent, O_RDONLY | O_DIRECTORY, true);
        int r = pfd < 0 ? -1 : unlinkat(pfd, slash ? slash + 1 : rel, AT_REMOVEDIR);
        /* A killed process leaves its cgroup only once its exit completes:
         * EBUSY for a moment after the list is already empty. */
        for (int tries = 0; r < 0 && errno == EBUSY && tries < 100; tries++) {
            nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
            kill_members(fd, v2);
            r = unlinkat(pfd, slash ? slash + 1 : rel, AT_REMOVEDIR);
        }
        if (r < 0) {
            if (errno == ENOENT)
                return 0;
            return rr_fail(err, errno, "remove cgroup %s%s", mnt, rel);
        }
    }
    return 0;
}

/* Remove the now-empty parents revrun made (the scope, then the base named
 * revrun*), stopping at the first one still in use. */
void cg_remove_empty_parents(const char *mnt, const char *path)
{
    _cleanup_close_ int root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
    char p[PATH_MAX];

    if (root < 0)
        return;
    /* an engine's relative linux.cgroupsPath, placed under /revrun-engine/:
     * every parent there is revrun's, /revrun-engine itself included */
    bool engine = strncmp(path, "/revrun-engine/", 15) == 0;

    snprintf(p, sizeof(p), "%s", path);
    for (int level = 0; level < (engine ? 64 : 2); level++) {
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p)
            return;
        *slash = '\0';
        char *name = strrchr(p, '/');
        if (name == NULL || (!engine && level == 1 && strncmp(name + 1, "revrun", 6) != 0))
            return;
        *name = '\0';
        _cleanup_close_ int pfd = rr_open_in_root(root, p[0] ? p : "/", O_RDONLY | O_DIRECTORY, true);
        int r = pfd < 0 ? -1 : unlinkat(pfd, name + 1, AT_REMOVEDIR);
        *name = '/';
        if (r < 0)
            return;
    }
}

int cgroup_remove(enum cg_version v, const char *path, struct rr_error *err)
{
    struct cgroup_host h;

    if (v == CG_NONE || path == NULL)
        return 0;
    /* first: a paused container's tasks die only once thawed */
    if (v == CG_V1) {
        cgroup_freezer_v1_remove(path);
        cgroup_devices_v1_remove(path); /* an engine's device rules */
    }
    cgroup_host_probe(&h, err);
    for (int i = 0; i < (v == CG_V2 ? 1 : 3); i++) {
        const char *mnt = mount_for(&h, v, i);
        if (mnt[0] != '\0' && cg_kill_and_rmdir(mnt, path, v == CG_V2, err) < 0)
            return -1;
        if (mnt[0] != '\0')
            cg_remove_empty_parents(mnt, path);
    }
    return 0;
}

bool cgroup_oom_killed(const struct cgroup_plan *cg)
{
    struct cgroup_host h;
    struct rr_error err;
    char buf[1024];
    const char *mnt;
    const char *key;

    if (!(cg->controllers & CG_MEMORY))
        return false;
    cgroup_host_probe(&h, &err);
    mnt = mount_for(&h, cg->version, 0);
    _cleanup_close_ int root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return false;
    _cleanup_close_ int fd = rr_open_in_root(root, cg->path, O_PATH | O_DIRECTORY, true);
    if (fd < 0 ||
        cg_read(fd, cg->version == CG_V2 ? "memory.events" : "memory.oom_control", buf,
                sizeof(buf)) < 0)
        return false;
    key = strstr(buf, "oom_kill ");
    return key != NULL && atoll(key + 9) > 0;
}
