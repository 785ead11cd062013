/* revrun sweep: clean what crashed or killed revrun processes left behind.
 *
 * A container is stale when its creation never finished (no state, or a
 * state without a pid) or when its monitor is gone (killed: the upper went
 * with it, so the bundle can only be destroyed). Stale ones are destroyed:
 * leftover processes killed, cgroup removed, state removed. A container
 * whose lock is held is in the hands of a live command and is skipped; a
 * healthy container is never touched. Then cgroups of revrun's that belong to
 * no container are removed, applies that died mid-commit are rolled back
 * from their journals (apply_journal.h), and, with --exports, exported
 * change sets older than the retention age. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "runtime/jobs/apply_journal.h"
#include "runtime/confine/cgroup.h"
#include "runtime/container/container.h"
#include "common/proc.h"
#include "runtime/container/statedir.h"
#include "runtime/container/engine.h"
#include "runtime/container/engine_checkout.h"
#include "runtime/container/engine_rootstore.h"
#include "runtime/container/idalloc.h"
#include "runtime/jobs/sweep.h"
#include "writeback/git/gitshadow.h"

/* Lock without waiting: -1 with EWOULDBLOCK when a live command holds it. */
static int try_lock(int dir)
{
    int fd = openat(dir, LOCK_FILE, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0)
        return errno == ENOENT ? -2 : -1;
    if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static time_t born(int dir)
{
    struct stat st;

    if (fstatat(dir, LOCK_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return st.st_mtime;
    if (fstat(dir, &st) == 0)
        return st.st_mtime;
    return 0;
}

/* Why the container is stale, or NULL when it is healthy. */
static const char *stale_reason(const struct rr_state *s, bool have)
{
    struct proc_ref mon;

    if (!have || s->pid == 0)
        return "its creation never finished";
    /* An engine's container has no monitor: its engine deletes it once it
     * has reaped the process; stale only when that process is gone. */
    if (engine_state_is_engine(s)) {
        struct proc_ref init = {(pid_t)s->pid, s->pid_start};
        return proc_ref_alive(&init) ? NULL : "its process is gone and its engine did not delete it";
    }
    mon = (struct proc_ref){(pid_t)s->monitor_pid, s->monitor_start};
    if (!proc_ref_alive(&mon))
        return "its monitor is gone";
    return NULL;
}

static int sweep_one(int rootfd, const char *id, const struct sweep_opts *o,
                     struct sweep_report *rep, struct rr_error *err)
{
    _cleanup_close_ int dir = openat(rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    _cleanup_close_ int lock = -1;
    struct rr_state s;
    const char *why;
    bool have;

    if (dir < 0)
        return 0;
    lock = try_lock(dir);
    if (lock == -1)
        return 0; /* a live command holds it */
    if (o->older_than_s > 0 && time(NULL) - born(dir) < (time_t)o->older_than_s)
        return 0;
    have = statedir_read_state(dir, &s, err) == 0;
    why = stale_reason(&s, have);
    if (why == NULL) {
        state_free(&s);
        return 0;
    }
    if (have) {
        if (container_stop_processes(&s, err) < 0 ||
            cgroup_remove(cgroup_version_parse(s.cgroup_version), s.cgroup, err) < 0) {
            state_free(&s);
            return rr_wrap(err, "sweep %s", id);
        }
        state_free(&s);
    }
    /* an engine's io.revrun.checkout store and its image's private upper,
     * mounted here by its create */
    if (engine_checkout_unmount(dir, err) < 0 || engine_root_store_unmount(dir, err) < 0 ||
        statedir_remove(rootfd, id, err) < 0)
        return rr_wrap(err, "sweep %s", id);
    snprintf(rep->lines[rep->n % SWEEP_MAX_LINES], sizeof(rep->lines[0]),
             "swept %s: %s", id, why);
    rep->n++;
    return 0;
}

static int sweep_state(const struct rr_ctx *ctx, const struct sweep_opts *o,
                       struct sweep_report *rep, struct rr_error *err)
{
    int rootfd = container_root(ctx, false, err);
    struct dirent *de;
    DIR *d;
    int r = 0;

    if (rootfd < 0)
        return err->errnum == ENOENT ? 0 : -1;
    d = fdopendir(rootfd);
    if (d == NULL) {
        close(rootfd);
        return rr_fail(err, errno, "read state root");
    }
    while (r == 0 && (de = readdir(d)) != NULL)
        if (rr_id_valid(de->d_name))
            r = sweep_one(dirfd(d), de->d_name, o, rep, err);
    closedir(d);
    return r;
}

static void report_line(void *arg, const char *line)
{
    struct sweep_report *rep = arg;

    snprintf(rep->lines[rep->n % SWEEP_MAX_LINES], sizeof(rep->lines[0]), "%s", line);
    rep->n++;
}

/* The shadow repositories of vets that crashed or were killed mid-way. */
static int sweep_git_shadows(const struct sweep_opts *o, struct sweep_report *rep,
                             struct rr_error *err)
{
    size_t n;

    if (wb_shadow_sweep(o->older_than_s, &n, err) < 0)
        return -1;
    if (n > 0) {
        snprintf(rep->lines[rep->n % SWEEP_MAX_LINES], sizeof(rep->lines[0]),
                 "removed %zu git shadow director%s a crashed vet left in %s", n,
                 n == 1 ? "y" : "ies", wb_shadow_parent());
        rep->n++;
    }
    return 0;
}

int container_sweep(const struct rr_ctx *ctx, const struct sweep_opts *o,
                    struct sweep_report *rep, struct rr_error *err)
{
    rep->n = 0;
    if (sweep_state(ctx, o, rep, err) < 0)
        return -1;
    if (sweep_orphan_cgroups(ctx, rep, err) < 0)
        return -1;
    /* Host ids of containers whose state is gone (those swept above too),
     * under any state root. */
    if (!ctx->rootless && idalloc_reclaim(report_line, rep, err) < 0)
        return -1;
    if (apply_journal_sweep(ctx, o->older_than_s, rep, err) < 0)
        return -1;
    if (sweep_git_shadows(o, rep, err) < 0)
        return -1;
    if (o->exports != NULL && sweep_exports(o, rep, err) < 0)
        return -1;
    return 0;
}

bool parse_duration(const char *s, uint64_t *seconds)
{
    char *end;
    unsigned long long v;
    uint64_t unit = 1;

    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return false;
    switch (*end) {
    case '\0': case 's': break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    default: return false;
    }
    if (*end != '\0' && end[1] != '\0')
        return false;
    if (v > UINT64_MAX / unit)
        return false;
    *seconds = v * unit;
    return true;
}
