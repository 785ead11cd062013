#include "runtime/container/activity_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "runtime/container/activity_mem.h"

#define AT_FDCWD_ARG ((uint64_t)(uint32_t)-100) /* AT_FDCWD as the kernel reads an int */
/* linux/nsfs.h of Linux 6.11: a pid of the caller's namespace as another
 * pid namespace sees its thread group */
#define ACT_NS_GET_TGID_IN_PIDNS _IOR(0xb7, 0x9, int)
#define STATUS_MAX 8192

/* ---- which calls ---- */

static void add_call(struct act_execs *x, uint32_t token, unsigned ptr_size)
{
    static const char *const names[2] = {"execve", "execveat"};
    /* x32's calls come as x86-64's, their numbers marked by a bit */
    uint32_t arch = token == SCMP_ARCH_X32 ? SCMP_ARCH_X86_64 : token;

    for (int i = 0; i < 2; i++) {
        int nr = seccomp_syscall_resolve_name_arch(token, names[i]);
        if (nr == __NR_SCMP_ERROR || nr < 0 || x->n_calls >= 6)
            continue;
        x->calls[x->n_calls++] = (struct act_call){arch, nr, i == 1, ptr_size};
    }
}

static void find_calls(struct act_execs *x)
{
    uint32_t native = seccomp_arch_native();

    add_call(x, native, native == SCMP_ARCH_X86_64 || native == SCMP_ARCH_AARCH64 ? 8 : 4);
    if (native == SCMP_ARCH_X86_64) {
        add_call(x, SCMP_ARCH_X86, 4);
        add_call(x, SCMP_ARCH_X32, 4);
    } else if (native == SCMP_ARCH_AARCH64) {
        add_call(x, SCMP_ARCH_ARM, 4);
    }
}

const struct act_call *act_execs_call(const struct act_execs *x, const struct seccomp_data *d)
{
    for (size_t i = 0; i < x->n_calls; i++)
        if (x->calls[i].nr == d->nr && x->calls[i].arch == d->arch)
            return &x->calls[i];
    return NULL;
}

/* ---- what /proc says ---- */

/* The ids after "key" (a tab-separated list, as /proc writes NSpid and
 * NStgid): the process's pid from /proc's pid namespace inward. */
static unsigned parse_ids(const char *text, const char *key, int *ids, unsigned max)
{
    const char *p = strstr(text, key);
    unsigned n = 0;

    if (p == NULL)
        return 0;
    p += strlen(key);
    while (n < max) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0)
            break;
        ids[n++] = (int)v;
        p = end;
    }
    return n;
}

static ssize_t read_at(int dirfd, const char *path, char *buf, size_t cap)
{
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, cap - 1);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* NStgid and PPid from /proc/PID/status. *n: how many ids. */
static int read_ids(int proc_fd, pid_t pid, int *ids, unsigned max, unsigned *n, pid_t *ppid)
{
    char path[32], buf[STATUS_MAX];
    const char *p;

    snprintf(path, sizeof(path), "%d/status", (int)pid);
    *n = 0;
    if (read_at(proc_fd, path, buf, sizeof(buf)) <= 0)
        return -1;
    if (ppid != NULL && (p = strstr(buf, "\nPPid:")) != NULL)
        *ppid = (pid_t)strtol(p + 6, NULL, 10);
    *n = parse_ids(buf, "\nNStgid:", ids, max);
    return *n > 0 ? 0 : -1;
}

/* The same from the monitor's pidfd of the process (its fdinfo: a much
 * shorter text than status; no ids once the process has been reaped). */
static int pidfd_ids(int proc_fd, int pidfd, int *ids, unsigned max, unsigned *n)
{
    char path[48], buf[512];

    snprintf(path, sizeof(path), "self/fdinfo/%d", pidfd);
    *n = 0;
    if (read_at(proc_fd, path, buf, sizeof(buf)) <= 0)
        return -1;
    *n = parse_ids(buf, "\nNSpid:", ids, max);
    return *n > 0 ? 0 : -1;
}

/* The pid in the container and how many pid namespaces deeper it is (the
 * agent's own sandbox), from a list of ids read from here inward. */
static void place(const struct act_execs *x, const int *ids, unsigned n, int *inside,
                  unsigned *nested)
{
    *inside = 0;
    *nested = 0;
    if (x->level == 0 || n < x->level)
        return;
    *inside = ids[x->level - 1];
    *nested = n - x->level;
}

/* A flat container's process: its pid inside, in one call (0: gone). */
static int inside_of(const struct act_execs *x, pid_t pid)
{
    int in = ioctl(x->pidns_fd, ACT_NS_GET_TGID_IN_PIDNS, (unsigned long)pid);

    return in > 0 ? in : 0;
}

/* The parent's pid in the container: pid 1's, a recorded process's, or
 * read. */
static int parent_inside(const struct act_execs *x, pid_t ppid)
{
    int ids[32], pid;
    unsigned n, nested;

    if (ppid <= 0)
        return 0;
    if (ppid == x->init_pid)
        return x->init_inside;
    pid = act_watch_inside_pid(x, ppid);
    if (pid != 0)
        return pid;
    if (x->flat && x->pidns_fd >= 0)
        return inside_of(x, ppid);
    if (read_ids(x->proc_fd, ppid, ids, 32, &n, NULL) < 0)
        return 0;
    place(x, ids, n, &pid, &nested);
    return pid;
}

static size_t read_link(int proc_fd, pid_t pid, const char *what, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;

    snprintf(path, sizeof(path), "%d/%s", (int)pid, what);
    n = readlinkat(proc_fd, path, buf, cap);
    return n > 0 ? (size_t)n : 0;
}

/* ---- the exec's texts ---- */

struct exec_texts {
    char path[ACT_MAX_PATH_BYTES];
    char cwd[ACT_MAX_PATH_BYTES];
    char full[2 * ACT_MAX_PATH_BYTES + 2]; /* where the lookup starts, for found */
    size_t path_len, cwd_len;
    uint64_t path_cut;
    bool from_fd; /* execveat on a descriptor: found by definition */
};

/* execveat(dirfd, "", ..., AT_EMPTY_PATH) runs the file dirfd is; with a
 * relative path, the path is under it. Shown as that place. */
static void execveat_base(const struct act_execs *x, const struct seccomp_notif *req,
                          struct exec_texts *t)
{
    char fd[32], base[ACT_MAX_PATH_BYTES];
    size_t n;

    if (req->data.args[0] == AT_FDCWD_ARG || (t->path_len > 0 && t->path[0] == '/'))
        return;
    snprintf(fd, sizeof(fd), "fd/%d", (int)(uint32_t)req->data.args[0]);
    n = read_link(x->proc_fd, req->pid, fd, base, sizeof(base));
    if (t->path_len == 0 && (req->data.args[4] & AT_EMPTY_PATH)) {
        memcpy(t->path, base, n);
        t->path_len = n;
        t->from_fd = true;
        return;
    }
    if (n + 1 + t->path_len > sizeof(t->path))
        return;
    memmove(t->path + n + 1, t->path, t->path_len);
    memcpy(t->path, base, n);
    t->path[n] = '/';
    t->path_len += n + 1;
}

/* 1 when a file is at the path as the process sees it (its root, its
 * cwd), 0 when nothing is (a PATH search's miss), -1 when the monitor
 * cannot tell. A lookup, not the exec's own: marked, never left out. */
static int found(int root_fd, struct exec_texts *t)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    _cleanup_close_ int fd = -1;
    int n;

    if (t->from_fd)
        return 1;
    if (root_fd < 0 || t->path_len == 0 || t->path_cut > 0 ||
        (t->path[0] != '/' && t->cwd_len == 0))
        return -1;
    /* the caller's own /proc/self (busybox re-running itself): looked up
     * here it would be revrun's, which has no pid in the container */
    if (t->path_len >= 11 && memcmp(t->path, "/proc/self/", 11) == 0)
        return -1;
    n = t->path[0] == '/' ? snprintf(t->full, sizeof(t->full), "%.*s", (int)t->path_len, t->path)
                          : snprintf(t->full, sizeof(t->full), "%.*s/%.*s", (int)t->cwd_len,
                                     t->cwd, (int)t->path_len, t->path);
    if (n < 0 || (size_t)n >= sizeof(t->full))
        return -1;
    fd = (int)syscall(SYS_openat2, root_fd, t->full, &how, sizeof(how));
    if (fd >= 0)
        return 1;
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

static void read_path(const struct seccomp_notif *req, const struct act_call *call,
                      struct exec_texts *t)
{
    uint64_t addr = req->data.args[call->at ? 1 : 0];

    t->path_len = 0;
    t->path_cut = 0;
    t->from_fd = false;
    if (act_read_string(req->pid, addr, t->path, sizeof(t->path), &t->path_len, &t->path_cut) < 0)
        t->path_len = 0;
}

/* ---- one notification ---- */

/* True when the call was still waiting: everything read while it waited
 * was that process's. False (ENOENT) when it was interrupted (a signal; it
 * comes again) or its process is gone (a pid read may be another's). */
static bool let_it_run(int notify_fd, uint64_t id)
{
    struct seccomp_notif_resp resp = {.id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};

    return ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0;
}

/* Where the process stands: its cwd, its root (for the lookup, made
 * later), its ids. Read while the call waits, as the memory is: a process
 * that exits a moment after its exec has been reaped before the monitor
 * would look again. */
struct where {
    int root_fd; /* -1: a flat container's, x->root_fd */
    int ids[32];
    unsigned n;
    int inside; /* a flat container's pid, when n is 0 */
    pid_t ppid;
};

/* Each of these is a system call while the exec waits, several
 * microseconds on a virtual machine: a flat container's process needs
 * three (cwd, its pid inside, its parent), another's up to six. */
static void gather(struct act_execs *x, pid_t pid, int pidfd, struct exec_texts *t,
                   struct where *w)
{
    char root[32];

    w->n = 0;
    w->inside = 0;
    w->ppid = 0;
    t->cwd_len = read_link(x->proc_fd, pid, "cwd", t->cwd, sizeof(t->cwd));
    w->root_fd = -1;
    if (!x->flat || x->root_fd < 0) {
        snprintf(root, sizeof(root), "%d/root", (int)pid);
        w->root_fd = openat(x->proc_fd, root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    if (x->flat && x->pidns_fd >= 0 && pidfd >= 0) {
        w->inside = inside_of(x, pid);
        if (w->inside > 0 && act_pidfd_ppid(pidfd, &w->ppid) == 0)
            return;
        w->inside = 0;
        if (errno == ENOTTY || errno == EINVAL) { /* an older kernel: ids from /proc */
            close(x->pidns_fd);
            x->pidns_fd = -1;
        }
    }
    /* a thread's exec has no pidfd of its own: status, the longer text */
    if (pidfd < 0 || pidfd_ids(x->proc_fd, pidfd, w->ids, 32, &w->n) < 0 ||
        act_pidfd_ppid(pidfd, &w->ppid) < 0) /* before Linux 6.13 */
        read_ids(x->proc_fd, pid, w->ids, 32, &w->n, &w->ppid);
}

/* After the answer: the lookup and the parent's pid in the container. A
 * flat container keeps the first root it read (its pid 1's exec's). */
static void settle_where(struct act_execs *x, struct where *w, struct exec_texts *t,
                         struct act_exec *e)
{
    e->found = found(w->root_fd >= 0 ? w->root_fd : x->root_fd, t);
    if (x->flat && x->root_fd < 0)
        x->root_fd = w->root_fd;
    else if (w->root_fd >= 0)
        close(w->root_fd);
    if (w->n == 0 && w->inside > 0)
        e->pid = w->inside;
    else
        place(x, w->ids, w->n, &e->pid, &e->nested);
    e->ppid = parent_inside(x, w->ppid);
}

void act_execs_handle(struct act_execs *x, int notify_fd, const struct seccomp_notif *req,
                      const struct act_call *call)
{
    struct exec_texts *t = x->texts;
    struct act_exec e = {.found = -1};
    struct where w;
    int pidfd;
    bool valid;
    uint64_t seq;

    if (activity_full(x->rec) && x->rec->refuse_when_full) {
        struct seccomp_notif_resp resp = {.id = req->id, .error = -EPERM};
        (void)ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        x->rec->refused++;
        return;
    }
    if (activity_full(x->rec)) {
        let_it_run(notify_fd, req->id);
        x->rec->more.execs++;
        return;
    }
    clock_gettime(CLOCK_REALTIME, &e.when);
    /* While the call waits: a pidfd (this process, whatever reuses its pid
     * later), what the exec is about to replace (its memory), where it
     * stands; then whether the notification was still that process's (so
     * all of it was). */
    pidfd = rr_pidfd_open(req->pid);
    read_path(req, call, t);
    if (act_read_argv(req->pid, req->data.args[call->at ? 2 : 1], call->ptr_size, x->args) < 0)
        x->args->n = x->args->argc = 0;
    if (call->at)
        execveat_base(x, req, t);
    gather(x, req->pid, pidfd, t, &w);
    valid = let_it_run(notify_fd, req->id);
    if (!valid) {
        if (w.root_fd >= 0)
            close(w.root_fd);
        if (pidfd >= 0)
            close(pidfd);
        return;
    }
    settle_where(x, &w, t, &e);
    e.cwd = (struct act_text){t->cwd, t->cwd_len};
    e.path = (struct act_text){t->path, t->path_len};
    e.argv = x->args->argv;
    e.n_argv = x->args->n;
    e.argc = x->args->argc;
    e.args_cut = e.argc - e.n_argv;
    e.bytes_cut = t->path_cut + x->args->bytes_cut;
    seq = activity_exec(x->rec, &e);
    if (seq != 0 && pidfd >= 0 && x->epfd >= 0)
        act_watch_add(x, pidfd, req->pid, e.pid, seq);
    else if (pidfd >= 0)
        close(pidfd);
}

/* ---- setup ---- */

int act_execs_init(struct act_execs *x, struct activity *rec, pid_t init_pid, bool flat,
                   struct rr_error *err)
{
    int ids[32];
    unsigned n;

    char ns[48];

    *x = (struct act_execs){.rec = rec, .init_pid = init_pid, .flat = flat, .proc_fd = -1,
                            .pidns_fd = -1, .root_fd = -1, .epfd = -1};
    x->proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (x->proc_fd < 0)
        return rr_fail(err, errno, "activity record: /proc");
    snprintf(ns, sizeof(ns), "%d/ns/pid", (int)init_pid);
    if (flat) /* none: ids from /proc, as for any container */
        x->pidns_fd = openat(x->proc_fd, ns, O_RDONLY | O_CLOEXEC);
    x->args = malloc(sizeof(*x->args));
    x->texts = malloc(sizeof(*x->texts));
    if (x->args == NULL || x->texts == NULL)
        return rr_fail(err, ENOMEM, "activity record");
    find_calls(x);
    /* pid 1 of the container: how deep its pid namespace is, seen from here */
    if (read_ids(x->proc_fd, init_pid, ids, 32, &n, NULL) == 0) {
        x->level = n;
        x->init_inside = ids[n - 1];
    }
    return act_watch_init(x, err);
}

void act_execs_free(struct act_execs *x)
{
    act_watch_free(x);
    free(x->args);
    free(x->texts);
    x->args = NULL;
    x->texts = NULL;
    if (x->proc_fd >= 0)
        close(x->proc_fd);
    if (x->pidns_fd >= 0)
        close(x->pidns_fd);
    if (x->root_fd >= 0)
        close(x->root_fd);
    x->proc_fd = x->pidns_fd = x->root_fd = -1;
}
