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

/* NStgid (the process's ids from /proc's pid namespace inward) and PPid,
 * from /proc/PID/status. *n: how many ids. */
static int read_ids(int proc_fd, pid_t pid, int *ids, unsigned max, unsigned *n, pid_t *ppid)
{
    char path[32], buf[STATUS_MAX];
    _cleanup_close_ int fd = -1;
    ssize_t len;
    char *p;

    *n = 0;
    snprintf(path, sizeof(path), "%d/status", (int)pid);
    fd = openat(proc_fd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || (len = read(fd, buf, sizeof(buf) - 1)) <= 0)
        return -1;
    buf[len] = '\0';
    if (ppid != NULL && (p = strstr(buf, "\nPPid:")) != NULL)
        *ppid = (pid_t)strtol(p + 6, NULL, 10);
    p = strstr(buf, "\nNStgid:");
    if (p == NULL)
        return -1;
    p += 8;
    while (*n < max) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            break;
        ids[(*n)++] = (int)v;
        p = end;
    }
    return *n > 0 ? 0 : -1;
}

/* The process's pid in the container, and how many pid namespaces deeper
 * it is (its own sandbox's). */
static void inside_ids(const struct act_execs *x, pid_t pid, int *inside, unsigned *nested,
                       pid_t *ppid)
{
    int ids[32];
    unsigned n;

    *inside = 0;
    *nested = 0;
    if (x->level == 0 || read_ids(x->proc_fd, pid, ids, 32, &n, ppid) < 0 || n < x->level)
        return;
    *inside = ids[x->level - 1];
    *nested = n - x->level;
}

static int parent_inside(const struct act_execs *x, pid_t ppid)
{
    int pid = act_watch_inside_pid(x, ppid);
    unsigned nested;

    if (pid == 0 && ppid > 0)
        inside_ids(x, ppid, &pid, &nested, NULL);
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
static int found(const struct act_execs *x, pid_t pid, struct exec_texts *t)
{
    struct open_how how = {.flags = O_PATH | O_CLOEXEC,
                           .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
    char root[32];
    _cleanup_close_ int rfd = -1;
    _cleanup_close_ int fd = -1;
    int n;

    if (t->from_fd)
        return 1;
    if (t->path_len == 0 || t->path_cut > 0 || (t->path[0] != '/' && t->cwd_len == 0))
        return -1;
    n = t->path[0] == '/' ? snprintf(t->full, sizeof(t->full), "%.*s", (int)t->path_len, t->path)
                          : snprintf(t->full, sizeof(t->full), "%.*s/%.*s", (int)t->cwd_len,
                                     t->cwd, (int)t->path_len, t->path);
    if (n < 0 || (size_t)n >= sizeof(t->full))
        return -1;
    snprintf(root, sizeof(root), "%d/root", (int)pid);
    rfd = openat(x->proc_fd, root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0)
        return -1;
    fd = (int)syscall(SYS_openat2, rfd, t->full, &how, sizeof(how));
    if (fd >= 0)
        return 1;
    return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
}

static void read_texts(const struct act_execs *x, const struct seccomp_notif *req,
                       const struct act_call *call, struct exec_texts *t)
{
    uint64_t addr = req->data.args[call->at ? 1 : 0];

    t->path_len = 0;
    t->path_cut = 0;
    t->from_fd = false;
    if (act_read_string(req->pid, addr, t->path, sizeof(t->path), &t->path_len, &t->path_cut) < 0)
        t->path_len = 0;
    t->cwd_len = read_link(x->proc_fd, req->pid, "cwd", t->cwd, sizeof(t->cwd));
    if (call->at)
        execveat_base(x, req, t);
}

/* ---- one notification ---- */

static void let_it_run(int notify_fd, uint64_t id)
{
    struct seccomp_notif_resp resp = {.id = id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE};

    /* ENOENT: the call was interrupted (a signal) or its process is gone */
    (void)ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

void act_execs_handle(struct act_execs *x, int notify_fd, const struct seccomp_notif *req,
                      const struct act_call *call)
{
    struct exec_texts *t = x->texts;
    struct act_exec e = {0};
    pid_t ppid = 0;
    int pidfd, valid;
    uint64_t seq;

    if (activity_full(x->rec)) {
        let_it_run(notify_fd, req->id);
        x->rec->more.execs++;
        return;
    }
    clock_gettime(CLOCK_REALTIME, &e.when);
    /* Before the answer: the pidfd, and what is only there while the call
     * waits (the memory, the cwd, the ids of a process that may be gone a
     * moment after); then whether all of it was the caller's. */
    pidfd = x->epfd >= 0 ? rr_pidfd_open(req->pid) : -1;
    read_texts(x, req, call, t);
    if (act_read_argv(req->pid, req->data.args[call->at ? 2 : 1], call->ptr_size, x->args) < 0)
        x->args->n = x->args->argc = 0;
    inside_ids(x, req->pid, &e.pid, &e.nested, &ppid);
    e.found = found(x, req->pid, t);
    valid = ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &req->id) == 0;
    let_it_run(notify_fd, req->id);
    if (!valid) {
        if (pidfd >= 0)
            close(pidfd);
        return;
    }
    e.ppid = parent_inside(x, ppid);
    e.cwd = (struct act_text){t->cwd, t->cwd_len};
    e.path = (struct act_text){t->path, t->path_len};
    e.argv = x->args->argv;
    e.n_argv = x->args->n;
    e.argc = x->args->argc;
    e.args_cut = e.argc - e.n_argv;
    e.bytes_cut = t->path_cut + x->args->bytes_cut;
    seq = activity_exec(x->rec, &e);
    if (seq != 0 && pidfd >= 0)
        act_watch_add(x, pidfd, req->pid, e.pid, seq);
    else if (pidfd >= 0)
        close(pidfd);
}

/* ---- setup ---- */

int act_execs_init(struct act_execs *x, struct activity *rec, pid_t init_pid,
                   struct rr_error *err)
{
    int ids[32];
    unsigned n;

    *x = (struct act_execs){.rec = rec, .init_pid = init_pid, .proc_fd = -1, .epfd = -1};
    x->proc_fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (x->proc_fd < 0)
        return rr_fail(err, errno, "activity record: /proc");
    x->args = malloc(sizeof(*x->args));
    x->texts = malloc(sizeof(*x->texts));
    if (x->args == NULL || x->texts == NULL)
        return rr_fail(err, ENOMEM, "activity record");
    find_calls(x);
    /* pid 1 of the container: how deep its pid namespace is, seen from here */
    if (read_ids(x->proc_fd, init_pid, ids, 32, &n, NULL) == 0)
        x->level = n;
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
    x->proc_fd = -1;
}
