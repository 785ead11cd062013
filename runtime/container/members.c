#include "runtime/container/members.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/cgroup_freeze.h"
#include "common/proc.h"

void members_free(struct members *m)
{
    for (size_t i = 0; i < m->n; i++)
        close(m->pidfds[i]);
    free(m->pids);
    free(m->pidfds);
    *m = (struct members){0};
}

static int grow(struct members *m, size_t cap, struct rr_error *err)
{
    m->pids = calloc(cap > 0 ? cap : 1, sizeof(pid_t));
    m->pidfds = calloc(cap > 0 ? cap : 1, sizeof(int));
    if (m->pids == NULL || m->pidfds == NULL)
        return rr_fail(err, ENOMEM, "members");
    return 0;
}

static bool in_list(const pid_t *v, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == pid)
            return true;
    return false;
}

/* cgroup.procs, pinned, then read again: only those still listed stay. */
static int from_cgroup(int dirfd, struct members *m, struct rr_error *err)
{
    _cleanup_free_ pid_t *first = NULL;
    _cleanup_free_ pid_t *again = NULL;
    size_t n = 0, n2 = 0;

    if (cgroup_read_procs(dirfd, &first, &n, MEMBERS_MAX, err) < 0 || grow(m, n, err) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int fd = rr_pidfd_open(first[i]);
        if (fd < 0)
            continue; /* gone already */
        m->pids[m->n] = first[i];
        m->pidfds[m->n++] = fd;
    }
    if (cgroup_read_procs(dirfd, &again, &n2, MEMBERS_MAX, err) < 0)
        return -1;
    for (size_t i = 0; i < m->n;) {
        if (in_list(again, n2, m->pids[i])) {
            i++;
            continue;
        }
        close(m->pidfds[i]);
        m->pids[i] = m->pids[m->n - 1];
        m->pidfds[i] = m->pidfds[m->n - 1];
        m->n--;
    }
    return 0;
}

static int ns_of(pid_t pid, struct stat *st)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
    return stat(path, st);
}

static int push(struct members *m, size_t *cap, pid_t pid, int fd, struct rr_error *err)
{
    if (m->n == *cap) {
        pid_t *p = realloc(m->pids, *cap * 2 * sizeof(pid_t));
        if (p != NULL)
            m->pids = p;
        int *f = p == NULL ? NULL : realloc(m->pidfds, *cap * 2 * sizeof(int));
        if (f == NULL) {
            close(fd);
            return rr_fail(err, ENOMEM, "members");
        }
        m->pidfds = f;
        *cap *= 2;
    }
    m->pids[m->n] = pid;
    m->pidfds[m->n++] = fd;
    return 0;
}

/* Add every process of pid namespace `want` not listed yet, pinned. */
static int scan_ns(const struct stat *want, struct members *m, size_t *cap, struct rr_error *err)
{
    struct stat st;
    struct dirent *de;
    DIR *d = opendir("/proc");

    if (d == NULL)
        return rr_fail(err, errno, "/proc");
    while ((de = readdir(d)) != NULL && m->n < MEMBERS_MAX) {
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        int fd;
        if (*end != '\0' || pid <= 0 || in_list(m->pids, m->n, (pid_t)pid) ||
            ns_of((pid_t)pid, &st) < 0 || st.st_ino != want->st_ino ||
            st.st_dev != want->st_dev)
            continue;
        if ((fd = rr_pidfd_open((pid_t)pid)) < 0)
            continue;
        /* pinned: is the process it pins (alive) still in the namespace? */
        if (ns_of((pid_t)pid, &st) < 0 || st.st_ino != want->st_ino ||
            rr_pidfd_send_signal(fd, 0) < 0) {
            close(fd);
            continue;
        }
        if (push(m, cap, (pid_t)pid, fd, err) < 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    return 0;
}

/* How deep in nested pid namespaces pid is: the number of ids on its
 * NSpid line (/proc/PID/status is readable where ns/ may not be). */
static int pid_depth(pid_t pid)
{
    char path[64], line[256];
    int depth = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "re");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "NSpid:", 6) != 0)
            continue;
        depth = 0;
        for (char *p = line + 6; *p != '\0';) {
            p += strspn(p, " \t");
            if (*p < '0' || *p > '9')
                break;
            depth++;
            p += strspn(p, "0123456789");
        }
        break;
    }
    fclose(f);
    return depth;
}

/* The parent of pid (PPid: of /proc/PID/status), or -1. */
static pid_t parent_of(pid_t pid)
{
    char path[64], line[256];
    pid_t ppid = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "re");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "PPid:", 5) == 0) {
            ppid = (pid_t)strtol(line + 5, NULL, 10);
            break;
        }
    fclose(f);
    return ppid;
}

/* Add the children of parent (every thread's /proc/P/task/T/children) that
 * are as deep in pid namespaces as the init, pinned, then checked again:
 * still alive, still the parent's child. */
static int add_children(pid_t parent, int depth, struct members *m, size_t *cap,
                        struct rr_error *err)
{
    char path[64];
    struct dirent *de;
    DIR *d;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)parent);
    if ((d = opendir(path)) == NULL)
        return 0; /* gone meanwhile */
    while ((de = readdir(d)) != NULL && m->n < MEMBERS_MAX) {
        char file[96], buf[4096];
        FILE *f;
        if (de->d_name[0] == '.' || strlen(de->d_name) > 16)
            continue;
        snprintf(file, sizeof(file), "/proc/%d/task/%s/children", (int)parent, de->d_name);
        if ((f = fopen(file, "re")) == NULL)
            continue;
        while (fscanf(f, "%4095s", buf) == 1 && m->n < MEMBERS_MAX) {
            pid_t c = (pid_t)strtol(buf, NULL, 10);
            int fd;
            if (c <= 0 || in_list(m->pids, m->n, c) || pid_depth(c) != depth ||
                (fd = rr_pidfd_open(c)) < 0)
                continue;
            if (parent_of(c) != parent || pid_depth(c) != depth ||
                rr_pidfd_send_signal(fd, 0) < 0) {
                close(fd);
                continue;
            }
            if (push(m, cap, c, fd, err) < 0) {
                fclose(f);
                closedir(d);
                return -1;
            }
        }
        fclose(f);
    }
    closedir(d);
    return 0;
}

/* Rootless, the init's namespace cannot be read (/proc/PID/ns needs ptrace
 * access, and revrun's pid 1 is not dumpable): its processes are the init
 * and its descendants in its namespace (a process the namespace's own
 * reaper would inherit), found through /proc/P/task/T/children, plus
 * whatever joined the namespace from outside (exec): the processes whose
 * namespace is that of a descendant that can be read. */
static int from_descendants(const struct proc_ref *init, struct members *m, struct rr_error *err)
{
    int depth = pid_depth(init->pid), self = pid_depth(getpid()), fd;
    size_t cap = 1024;
    struct stat ref;

    if (depth < 0 || self < 0)
        return rr_fail(err, errno ? errno : ESRCH, "the container's pid namespace");
    if (depth <= self)
        return rr_fail(err, EOPNOTSUPP, "the container has neither a cgroup nor a pid namespace "
                                        "of its own: its processes cannot be told apart");
    if (grow(m, cap, err) < 0)
        return -1;
    if ((fd = proc_ref_pidfd(init)) < 0)
        return 0; /* ended meanwhile: no members */
    m->pids[0] = init->pid;
    m->pidfds[0] = fd;
    m->n = 1;
    for (size_t i = 0; i < m->n && m->n < MEMBERS_MAX; i++)
        if (add_children(m->pids[i], depth, m, &cap, err) < 0)
            return -1;
    for (size_t i = 1; i < m->n; i++)
        if (ns_of(m->pids[i], &ref) == 0)
            return scan_ns(&ref, m, &cap, err);
    return 0;
}

/* Every process whose pid namespace is the container init's. */
static int from_pidns(const struct rr_state *s, struct members *m, struct rr_error *err)
{
    struct proc_ref init = {(pid_t)s->pid, s->pid_start};
    struct stat want, self;
    _cleanup_close_ int initfd = proc_ref_pidfd(&init);
    size_t cap = 1024;

    if (initfd < 0)
        return grow(m, 0, err); /* stopped: no members */
    if (stat("/proc/self/ns/pid", &self) < 0)
        return rr_fail(err, errno, "the container's pid namespace");
    if (ns_of(init.pid, &want) < 0) {
        if (errno == EACCES || errno == EPERM)
            return from_descendants(&init, m, err);
        return rr_fail(err, errno, "the container's pid namespace");
    }
    if (rr_pidfd_send_signal(initfd, 0) < 0)
        return grow(m, 0, err);
    if (want.st_ino == self.st_ino && want.st_dev == self.st_dev)
        return rr_fail(err, EOPNOTSUPP, "the container has neither a cgroup nor a pid namespace "
                                        "of its own: its processes cannot be told apart");
    if (grow(m, cap, err) < 0)
        return -1;
    return scan_ns(&want, m, &cap, err);
}

/* The cgroup also holds revrun's own host-side helper for the container
 * (the fuse-overlayfs daemon, counted against its memory): when the init
 * is in a pid namespace below ours, only processes as deep as it are the
 * container's. */
static void keep_pidns(const struct rr_state *s, struct members *m)
{
    int want = pid_depth((pid_t)s->pid), self = pid_depth(getpid());

    if (want < 0 || self < 0 || want <= self)
        return;
    for (size_t i = 0; i < m->n;) {
        if (pid_depth(m->pids[i]) == want) {
            i++;
            continue;
        }
        close(m->pidfds[i]);
        m->pids[i] = m->pids[m->n - 1];
        m->pidfds[i] = m->pidfds[m->n - 1];
        m->n--;
    }
}

int members_collect(const struct rr_state *s, struct members *m, struct rr_error *err)
{
    _cleanup_close_ int dirfd = -1;
    struct proc_ref init = {(pid_t)s->pid, s->pid_start};

    *m = (struct members){0};
    dirfd = cgroup_members_dir(cgroup_version_parse(s->cgroup_version), s->cgroup);
    if (dirfd >= 0 && from_cgroup(dirfd, m, err) == 0) {
        /* the init's namespace is only known while the init is alive */
        if (proc_ref_alive(&init))
            keep_pidns(s, m);
        else
            members_free(m), grow(m, 0, err);
        return 0;
    }
    if (dirfd >= 0 || from_pidns(s, m, err) < 0) {
        members_free(m);
        return rr_wrap(err, "the container's processes");
    }
    return 0;
}

int members_signal(const struct members *m, int sig, struct rr_error *err)
{
    for (size_t i = 0; i < m->n; i++)
        if (rr_pidfd_send_signal(m->pidfds[i], sig) < 0 && errno != ESRCH)
            return rr_fail(err, errno, "signal %d to %d", sig, (int)m->pids[i]);
    return 0;
}
