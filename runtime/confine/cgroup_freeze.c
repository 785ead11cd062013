#include "runtime/confine/libmnt.h"
#include "runtime/confine/cgroup_freeze.h"
#include "runtime/confine/cgroup_extra.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

/* How long a freeze or thaw may take before revrun says so (the kernel
 * waits for every task to reach a safe point). */
#define FREEZE_WAIT_ROUNDS 500 /* x 10 ms */

/* The mount point of the v1 hierarchy that has controller name. */
static int v1_mount_of(const char *name, char *out, size_t len)
{
    struct libmnt_table *tb;
    struct libmnt_iter *it;
    struct libmnt_fs *fs;
    struct rr_error err;
    int r = -1;

    if (rr_libmnt_load(&err) < 0)
        return -1;
    tb = mnt_new_table_from_file("/proc/self/mountinfo");
    it = mnt_new_iter(MNT_ITER_FORWARD);

    while (r < 0 && tb != NULL && it != NULL && mnt_table_next_fs(tb, it, &fs) == 0) {
        const char *type = mnt_fs_get_fstype(fs), *opts = mnt_fs_get_fs_options(fs);
        if (type != NULL && strcmp(type, "cgroup") == 0 && opts != NULL &&
            mnt_optstr_get_option(opts, name, NULL, NULL) == 0) {
            snprintf(out, len, "%s", mnt_fs_get_target(fs));
            r = 0;
        }
    }
    mnt_free_iter(it);
    mnt_unref_table(tb);
    return r;
}

static int v2_mount(char *out, size_t len)
{
    struct cgroup_host h;
    struct rr_error ignored;

    cgroup_host_probe(&h, &ignored);
    if (h.v2_mount[0] == '\0')
        return -1;
    snprintf(out, len, "%s", h.v2_mount);
    return 0;
}

/* mnt/path as a directory fd, never following a symlink on the way. */
static int open_under(const char *mnt, const char *path, int flags)
{
    _cleanup_close_ int root = open(mnt, O_PATH | O_DIRECTORY | O_CLOEXEC);

    if (root < 0)
        return -1;
    return rr_open_in_root(root, path, flags | O_DIRECTORY, true);
}

int cgroup_members_dir(enum cg_version v, const char *path)
{
    static const char *const v1[] = {"memory", "pids", "cpu", "devices"};
    char mnt[PATH_MAX];

    if (path == NULL || v == CG_NONE) {
        errno = ENOENT;
        return -1;
    }
    if (v == CG_V2)
        return v2_mount(mnt, sizeof(mnt)) < 0 ? (errno = ENOENT, -1)
                                              : open_under(mnt, path, O_RDONLY);
    for (size_t i = 0; i < 4; i++) {
        int fd;
        if (v1_mount_of(v1[i], mnt, sizeof(mnt)) < 0)
            continue;
        if ((fd = open_under(mnt, path, O_RDONLY)) >= 0)
            return fd;
    }
    errno = ENOENT;
    return -1;
}

int cgroup_read_procs(int dirfd, pid_t **pids, size_t *n, size_t max, struct rr_error *err)
{
    _cleanup_free_ char *text = NULL;
    size_t len = 0;
    char *save = NULL;

    *pids = NULL;
    *n = 0;
    /* 8 bytes a pid is plenty: "4194304\n" */
    if (rr_read_file(dirfd, "cgroup.procs", max * 8 + 1, &text, &len, err) < 0)
        return rr_wrap(err, "cgroup.procs");
    *pids = calloc(max > 0 ? max : 1, sizeof(pid_t));
    if (*pids == NULL)
        return rr_fail(err, ENOMEM, "cgroup.procs");
    for (char *p = strtok_r(text, "\n", &save); p != NULL && *n < max;
         p = strtok_r(NULL, "\n", &save)) {
        char *end;
        long v = strtol(p, &end, 10);
        if (*end == '\0' && v > 0 && v <= INT_MAX)
            (*pids)[(*n)++] = (pid_t)v;
    }
    return 0;
}

static int freezer_v1_dir(const char *path, bool create, struct rr_error *err)
{
    char mnt[PATH_MAX];

    if (v1_mount_of("freezer", mnt, sizeof(mnt)) < 0)
        return rr_fail(err, EOPNOTSUPP, "pause: this host has no v1 freezer hierarchy");
    if (create) {
        int fd = cg_mkdir(mnt, path, err);
        if (fd < 0)
            return -1;
        close(fd);
    }
    int fd = open_under(mnt, path, O_RDONLY);
    if (fd < 0)
        return rr_fail(err, errno, "freezer cgroup %s%s", mnt, path);
    return fd;
}

bool cgroup_frozen(enum cg_version v, const char *path)
{
    char buf[64];
    struct rr_error ignored;

    if (path == NULL || v == CG_NONE)
        return false;
    if (v == CG_V2) {
        char mnt[PATH_MAX];
        _cleanup_close_ int fd =
            v2_mount(mnt, sizeof(mnt)) < 0 ? -1 : open_under(mnt, path, O_RDONLY);
        return fd >= 0 && cg_read(fd, "cgroup.freeze", buf, sizeof(buf)) == 0 && buf[0] == '1';
    }
    {
        char mnt[PATH_MAX];
        _cleanup_close_ int fd = v1_mount_of("freezer", mnt, sizeof(mnt)) < 0
                                     ? -1
                                     : open_under(mnt, path, O_RDONLY);
        (void)ignored;
        return fd >= 0 && cg_read(fd, "freezer.state", buf, sizeof(buf)) == 0 &&
               strncmp(buf, "THAWED", 6) != 0;
    }
}

static void pause_10ms(void)
{
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
}

/* v2: cgroup.events says "frozen 1" once every task has stopped. */
static int v2_set(const char *path, bool frozen, struct rr_error *err)
{
    char mnt[PATH_MAX], buf[512];
    _cleanup_close_ int fd = -1;

    if (v2_mount(mnt, sizeof(mnt)) < 0)
        return rr_fail(err, ENOENT, "no cgroup2 mount");
    fd = open_under(mnt, path, O_RDONLY);
    if (fd < 0)
        return rr_fail(err, errno, "cgroup %s%s", mnt, path);
    if (cg_write(fd, "cgroup.freeze", frozen ? "1" : "0", err) < 0)
        return -1;
    for (int i = 0; i < FREEZE_WAIT_ROUNDS; i++) {
        const char *f;
        if (cg_read(fd, "cgroup.events", buf, sizeof(buf)) < 0)
            return rr_fail(err, errno, "cgroup.events");
        f = strstr(buf, "frozen ");
        if (f != NULL && (f[7] == '1') == frozen)
            return 0;
        pause_10ms();
    }
    return rr_fail(err, ETIMEDOUT, "the cgroup did not %s", frozen ? "freeze" : "thaw");
}

/* v1: every member of the container's cgroup into FREEZER/PATH. A member
 * forked while we move its parent is listed on the next pass; the loop ends
 * when a pass moves nobody new (bounded). */
static int v1_gather(int members, int freezer, struct rr_error *err)
{
    for (int round = 0; round < 100; round++) {
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, moved = 0;
        if (cgroup_read_procs(members, &pids, &n, 65536, err) < 0)
            return -1;
        _cleanup_free_ pid_t *have = NULL;
        size_t nh = 0;
        if (cgroup_read_procs(freezer, &have, &nh, 65536, err) < 0)
            return -1;
        for (size_t i = 0; i < n; i++) {
            bool in = false;
            char txt[16];
            for (size_t j = 0; j < nh && !in; j++)
                in = have[j] == pids[i];
            if (in)
                continue;
            snprintf(txt, sizeof(txt), "%d", (int)pids[i]);
            /* ESRCH: it exited meanwhile */
            if (cg_write(freezer, "cgroup.procs", txt, err) < 0 && err->errnum != ESRCH)
                return -1;
            moved++;
        }
        if (moved == 0)
            return 0;
    }
    return rr_fail(err, EAGAIN, "pause: the container keeps forking");
}

static int v1_set(const char *path, bool frozen, struct rr_error *err)
{
    char buf[64];
    _cleanup_close_ int fz = freezer_v1_dir(path, frozen, err);

    if (fz < 0)
        return -1;
    if (frozen) {
        _cleanup_close_ int members = cgroup_members_dir(CG_V1, path);
        if (members < 0)
            return rr_fail(err, errno, "the container's cgroup %s", path);
        if (v1_gather(members, fz, err) < 0)
            return -1;
    }
    if (cg_write(fz, "freezer.state", frozen ? "FROZEN" : "THAWED", err) < 0)
        return -1;
    for (int i = 0; i < FREEZE_WAIT_ROUNDS; i++) {
        if (cg_read(fz, "freezer.state", buf, sizeof(buf)) < 0)
            return rr_fail(err, errno, "freezer.state");
        if (strncmp(buf, frozen ? "FROZEN" : "THAWED", 6) == 0)
            return 0;
        /* FREEZING: a task was busy; asking again lets the kernel retry */
        if (frozen)
            cg_write(fz, "freezer.state", "FROZEN", err);
        pause_10ms();
    }
    return rr_fail(err, ETIMEDOUT, "the cgroup did not %s", frozen ? "freeze" : "thaw");
}

int cgroup_set_frozen(enum cg_version v, const char *path, bool frozen, struct rr_error *err)
{
    if (path == NULL || v == CG_NONE)
        return rr_fail(err, EOPNOTSUPP,
                       "the container has no cgroup (it was given no resource limit), so "
                       "there is nothing to freeze");
    return v == CG_V2 ? v2_set(path, frozen, err) : v1_set(path, frozen, err);
}

void cgroup_freezer_v1_remove(const char *path)
{
    char mnt[PATH_MAX];
    struct rr_error ignored;

    if (path == NULL || v1_mount_of("freezer", mnt, sizeof(mnt)) < 0)
        return;
    {
        _cleanup_close_ int fd = open_under(mnt, path, O_RDONLY);
        if (fd < 0)
            return;
        /* Frozen tasks do not die of SIGKILL until thawed. */
        cg_write(fd, "freezer.state", "THAWED", &ignored);
    }
    if (cg_kill_and_rmdir(mnt, path, false, &ignored) == 0)
        cg_remove_empty_parents(mnt, path);
}

static int put(int fd, const char *file, int64_t v, struct rr_error *err)
{
    char txt[32];

    snprintf(txt, sizeof(txt), "%lld", (long long)v);
    return cg_write(fd, file, txt, err);
}

/* One controller's directory: v2 the cgroup itself, v1 its hierarchy. */
static int limit_dir(enum cg_version v, const char *ctl, const char *path, struct rr_error *err)
{
    char mnt[PATH_MAX];
    int fd;

    if (v == CG_V2 ? v2_mount(mnt, sizeof(mnt)) < 0 : v1_mount_of(ctl, mnt, sizeof(mnt)) < 0)
        return rr_fail(err, EOPNOTSUPP, "update: this host has no %s cgroup", ctl);
    fd = open_under(mnt, path, O_RDONLY);
    if (fd < 0)
        return rr_fail(err, errno, "update: the container has no %s cgroup (%s%s); only a limit "
                                   "it was created with can be changed", ctl, mnt, path);
    return fd;
}

static int update_memory(enum cg_version v, const char *path, const struct rr_resources *r,
                         struct rr_error *err)
{
    _cleanup_close_ int fd = limit_dir(v, "memory", path, err);

    if (fd < 0)
        return -1;
    if (v == CG_V2) {
        if (r->memory_limit != RR_UNSET && put(fd, "memory.max", r->memory_limit, err) < 0)
            return -1;
        /* OCI's swap is memory+swap; v2 counts swap alone */
        if (r->memory_swap != RR_UNSET && r->memory_limit != RR_UNSET &&
            faccessat(fd, "memory.swap.max", F_OK, 0) == 0 &&
            put(fd, "memory.swap.max", r->memory_swap - r->memory_limit, err) < 0)
            return -1;
        return 0;
    }
    /* v1: memsw must stay >= the limit, so the order depends on direction */
    bool memsw = faccessat(fd, "memory.memsw.limit_in_bytes", F_OK, 0) == 0;
    int64_t sw = r->memory_swap != RR_UNSET ? r->memory_swap : r->memory_limit;
    if (memsw && sw != RR_UNSET && put(fd, "memory.memsw.limit_in_bytes", sw, err) < 0)
        err->errnum = 0; /* lowering: retried after the limit */
    if (r->memory_limit != RR_UNSET && put(fd, "memory.limit_in_bytes", r->memory_limit, err) < 0)
        return -1;
    if (memsw && sw != RR_UNSET && put(fd, "memory.memsw.limit_in_bytes", sw, err) < 0)
        return -1;
    return 0;
}

int cgroup_update(enum cg_version v, const char *path, const struct rr_resources *r,
                  struct rr_error *err)
{
    if (path == NULL || v == CG_NONE)
        return rr_fail(err, EOPNOTSUPP, "update: the container has no cgroup (it was created "
                                        "without limits)");
    if ((r->memory_limit != RR_UNSET || r->memory_swap != RR_UNSET) &&
        update_memory(v, path, r, err) < 0)
        return -1;
    if (r->pids_limit != RR_UNSET) {
        _cleanup_close_ int fd = limit_dir(v, "pids", path, err);
        if (fd < 0 || put(fd, "pids.max", r->pids_limit, err) < 0)
            return -1;
    }
    if (r->cpu_shares != RR_UNSET && r->cpu_shares > 0) {
        /* a kubelet's resize: shares as created (v2: runc's weight) */
        _cleanup_close_ int fd = limit_dir(v, "cpu", path, err);
        long long s = r->cpu_shares < 2 ? 2 : r->cpu_shares > 262144 ? 262144 : r->cpu_shares;
        if (fd < 0 || put(fd, v == CG_V2 ? "cpu.weight" : "cpu.shares",
                          v == CG_V2 ? 1 + ((s - 2) * 9999) / 262142 : s, err) < 0)
            return -1;
    }
    if (r->cpu_quota != RR_UNSET || r->cpu_period != RR_UNSET) {
        _cleanup_close_ int fd = limit_dir(v, "cpu", path, err);
        if (fd < 0)
            return -1;
        if (v == CG_V2) {
            char txt[64], cur[64] = "max 100000";
            long long q = r->cpu_quota, per = r->cpu_period;
            cg_read(fd, "cpu.max", cur, sizeof(cur));
            if (per == RR_UNSET)
                per = atoll(strchr(cur, ' ') ? strchr(cur, ' ') + 1 : "100000");
            if (q == RR_UNSET)
                snprintf(txt, sizeof(txt), "%.*s %lld", (int)strcspn(cur, " "), cur, per);
            else
                snprintf(txt, sizeof(txt), "%lld %lld", q, per);
            if (cg_write(fd, "cpu.max", txt, err) < 0)
                return -1;
        } else {
            if (r->cpu_period != RR_UNSET && put(fd, "cpu.cfs_period_us", r->cpu_period, err) < 0)
                return -1;
            if (r->cpu_quota != RR_UNSET && put(fd, "cpu.cfs_quota_us", r->cpu_quota, err) < 0)
                return -1;
        }
    }
    return 0;
}

int cgroup_join_existing(enum cg_version v, const char *path, pid_t pid, struct rr_error *err)
{
    static const char *const v1[] = {"memory", "pids", "cpu", "freezer", "devices"};
    char mnt[PATH_MAX], txt[16];
    int joined = 0;

    if (path == NULL || v == CG_NONE)
        return 0;
    snprintf(txt, sizeof(txt), "%d", (int)pid);
    for (size_t i = 0; i < (v == CG_V2 ? 1 : 5); i++) {
        if (v == CG_V2 ? v2_mount(mnt, sizeof(mnt)) < 0
                       : v1_mount_of(v1[i], mnt, sizeof(mnt)) < 0)
            continue;
        _cleanup_close_ int fd = open_under(mnt, path, O_RDONLY);
        if (fd < 0)
            continue; /* not a hierarchy this container uses */
        if (cg_write(fd, "cgroup.procs", txt, err) < 0)
            return rr_wrap(err, "join the container's cgroup");
        joined++;
    }
    /* none: the limits were best effort and no hierarchy could take
     * them; the container's own processes are in none either */
    (void)joined;
    /* an engine container's other hierarchies (where create made them) */
    return v == CG_V1 ? cgroup_extra_join(true, path, pid, err) : 0;
}

/* "a-b.slice" -> "/a.slice/a-b.slice", as systemd nests slices. */
static int slice_path(const char *slice, size_t n, char *out, size_t len)
{
    size_t o = 0;

    out[0] = '\0';
    if (n == 0 || (n == 1 && slice[0] == '-'))
        return 0; /* the root slice */
    if (n < 7 || strncmp(slice + n - 6, ".slice", 6) != 0)
        return -1;
    for (size_t i = 0; i <= n - 6; i++) {
        if (i < n - 6 && slice[i] != '-')
            continue;
        if (i == 0 || slice[i - 1] == '-')
            return -1; /* empty component */
        int w = snprintf(out + o, len - o, "/%.*s.slice", (int)i, slice);
        if (w < 0 || (size_t)w >= len - o)
            return -1;
        o += (size_t)w;
    }
    return 0;
}

int cgroup_systemd_path(const char *spec, char *out, size_t len, struct rr_error *err)
{
    const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    char slice[PATH_MAX];

    if (c1 == NULL || c2 == NULL || strchr(c2 + 1, ':') != NULL || strchr(spec, '/') != NULL ||
        c2[1] == '\0' || slice_path(spec, (size_t)(c1 - spec), slice, sizeof(slice)) < 0)
        return rr_fail(err, EINVAL, "linux.cgroupsPath \"%s\": --systemd-cgroup wants "
                                    "slice:prefix:name", spec);
    if ((size_t)snprintf(out, len, "%s/%.*s%s%s.scope", slice[0] ? slice : "/system.slice",
                         (int)(c2 - c1 - 1), c1 + 1, c2 - c1 > 1 ? "-" : "", c2 + 1) >= len)
        return rr_fail(err, ENAMETOOLONG, "linux.cgroupsPath");
    return 0;
}
