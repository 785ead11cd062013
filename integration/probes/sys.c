/* sys: calls each syscall revrun's seccomp floor denies and prints
 * "name=ERRNO" (or "name=ok"), one per line, for containment.bats.
 *
 *   sys           the native ABI
 *   sys compat    the same through the other ABIs the kernel accepts on x86-64
 *                 (i386 with int 0x80, x32 with bit 30): "i386.name=..." or
 *                 "i386=unavailable"
 *   sys families  socket() of every address family 0..63 (and one with a
 *                 high bit set): "af.N=ok" when some socket type of it
 *                 opens, else the errno of the first type; AF_NETLINK of
 *                 some protocols ("netlink.audit=..."); socketpair of
 *                 AF_UNIX and AF_VSOCK; AF_VSOCK through the i386 socket
 *                 and socketcall calls and x32 ("i386.socket.vsock=...")
 *
 * Arguments are chosen so that, without the filter, the kernel would
 * answer with something other than EPERM wherever it checks its arguments
 * before privileges (EFAULT, EINVAL, EBADF), or would succeed (keyctl,
 * settimeofday(NULL, NULL), personality, unshare/clone of a user namespace,
 * ptrace of its own child): so EPERM there comes from the filter. Calls
 * that would change this process run in a child. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x80
#endif
#define CLONE_NEWNS_ 0x00020000
#define CLONE_NEWCGROUP_ 0x02000000
#define CLONE_NEWUTS_ 0x04000000
#define CLONE_NEWIPC_ 0x08000000
#define CLONE_NEWUSER_ 0x10000000
#define CLONE_NEWPID_ 0x20000000
#define CLONE_NEWNET_ 0x40000000

struct call {
    const char *name;
    long nr;
    long a[6];
};

static const struct call calls[] = {
    {"mount", SYS_mount, {0, 0, 0, 0, 0}},
    {"umount2", SYS_umount2, {0, -1}},
    {"pivot_root", SYS_pivot_root, {0, 0}},
    {"move_mount", SYS_move_mount, {-1, 0, -1, 0, -1}},
    {"open_tree", SYS_open_tree, {-1, 0, -1}},
    {"fsopen", SYS_fsopen, {0, -1}},
    {"fsconfig", SYS_fsconfig, {-1, -1, 0, 0, 0}},
    {"fsmount", SYS_fsmount, {-1, -1, 0}},
    {"fspick", SYS_fspick, {-1, 0, -1}},
    {"mount_setattr", SYS_mount_setattr, {-1, 0, -1, 0, 0}},
    {"keyctl", SYS_keyctl, {0 /* GET_KEYRING_ID */, -3 /* session */, 0}},
    {"add_key", SYS_add_key, {0, 0, 0, 0, 0}},
    {"request_key", SYS_request_key, {0, 0, 0, 0}},
    {"bpf", SYS_bpf, {-1, 0, 0}},
    {"perf_event_open", SYS_perf_event_open, {0, 0, -1, -1, 0}},
    {"userfaultfd", SYS_userfaultfd, {-1}},
    {"io_uring_setup", SYS_io_uring_setup, {0, 0}},
    {"kexec_load", SYS_kexec_load, {0, 0, 0, 0}},
    {"kexec_file_load", SYS_kexec_file_load, {-1, -1, 0, 0, 0}},
    {"init_module", SYS_init_module, {0, 0, 0}},
    {"finit_module", SYS_finit_module, {-1, 0, 0}},
    {"delete_module", SYS_delete_module, {0, 0}},
    {"open_by_handle_at", SYS_open_by_handle_at, {-1, 0, 0}},
    {"setns", SYS_setns, {-1, 0}},
    {"acct", SYS_acct, {0}},
    {"swapon", SYS_swapon, {0, 0}},
    {"swapoff", SYS_swapoff, {0}},
    {"reboot", SYS_reboot, {0, 0, 0, 0}},
    {"syslog", SYS_syslog, {3, 0, 0}},
    {"settimeofday", SYS_settimeofday, {0, 0}},
    {"clock_settime", SYS_clock_settime, {0, 0}},
    {"iopl", SYS_iopl, {4}},
    {"ioperm", SYS_ioperm, {0, 0, 0}},
    {"quotactl", SYS_quotactl, {0, 0, 0, 0}},
    {"personality", SYS_personality, {PER_LINUX | ADDR_NO_RANDOMIZE}},
    {"ioctl.TIOCSTI", SYS_ioctl, {0, TIOCSTI, 0}},
    {"ioctl.TIOCSTI.highbits", SYS_ioctl, {0, (long)(0xdead00000000ULL | TIOCSTI), 0}},
    {"ioctl.TIOCLINUX", SYS_ioctl, {0, TIOCLINUX, 0}},
    {"clone3", SYS_clone3, {0, 0}},
};

static const struct {
    const char *name;
    long flag;
} ns_flags[] = {
    {"user", CLONE_NEWUSER_},     {"mnt", CLONE_NEWNS_},   {"pid", CLONE_NEWPID_},
    {"net", CLONE_NEWNET_},       {"uts", CLONE_NEWUTS_},  {"ipc", CLONE_NEWIPC_},
    {"cgroup", CLONE_NEWCGROUP_}, {"time", CLONE_NEWTIME},
};

static void report(const char *prefix, const char *name, long r, int e)
{
    printf("%s%s=%s\n", prefix, name, r >= 0 ? "ok" : strerrorname_np(e));
}

/* Run fn in a child, so a call that works cannot change this process. */
static void in_child(const char *prefix, const char *name, long (*fn)(long), long arg)
{
    int p[2], res[2] = {0, 0};
    pid_t pid;

    if (pipe(p) < 0)
        return;
    pid = fork();
    if (pid == 0) {
        long r = fn(arg);
        res[0] = r >= 0;
        res[1] = errno;
        if (write(p[1], res, sizeof(res)) < 0)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], res, sizeof(res)) != (ssize_t)sizeof(res))
        res[0] = 0, res[1] = EIO;
    close(p[0]);
    waitpid(pid, NULL, 0);
    report(prefix, name, res[0] ? 0 : -1, res[1]);
}

static long do_unshare(long flag)
{
    return syscall(SYS_unshare, flag);
}

static long do_clone(long flag)
{
    long r = syscall(SYS_clone, flag | SIGCHLD, 0, 0, 0, 0);
    if (r == 0)
        _exit(0);
    if (r > 0)
        waitpid((pid_t)r, NULL, 0);
    return r;
}

static long do_ptrace(long unused)
{
    pid_t child = fork();
    long r;

    (void)unused;
    if (child == 0) {
        pause();
        _exit(0);
    }
    r = ptrace(PTRACE_ATTACH, child, 0, 0);
    int e = errno;
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    errno = e;
    return r;
}

static void native(void)
{
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        const long *a = calls[i].a;
        long r = syscall(calls[i].nr, a[0], a[1], a[2], a[3], a[4], a[5]);
        report("", calls[i].name, r, errno);
    }
    for (size_t i = 0; i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "unshare.%s", ns_flags[i].name);
        in_child("", name, do_unshare, ns_flags[i].flag);
        /* clone() has no time namespace: 0x80 is part of its exit signal. */
        if (ns_flags[i].flag == CLONE_NEWTIME)
            continue;
        snprintf(name, sizeof(name), "clone.%s", ns_flags[i].name);
        in_child("", name, do_clone, ns_flags[i].flag);
    }
    in_child("", "ptrace", do_ptrace, 0);
}


/* One socket of family f with any of the usual types: 0 when one opens. */
static long open_family(long f)
{
    static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW};
    int first = 0;

    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        long s = syscall(SYS_socket, f, types[t] | SOCK_CLOEXEC, 0);
        if (s >= 0) {
            close((int)s);
            return 0;
        }
        if (first == 0)
            first = errno;
    }
    errno = first;
    return -1;
}

static void families_native(void)
{
    static const struct {
        const char *name;
        long protocol;
    } netlink[] = {{"route", 0}, {"sock_diag", 4}, {"audit", 9}, {"uevent", 15},
                   {"route.highbits", 0x100000000L}};
    int sv[2];
    long r;

    for (long f = 0; f < 64; f++) {
        char name[32];
        snprintf(name, sizeof(name), "af.%ld", f);
        r = open_family(f);
        report("", name, r, errno);
    }
    /* AF_VSOCK with bit 32 set: the kernel reads an int, so this is vsock */
    r = open_family(0x100000000L | 40);
    report("", "af.vsock.highbits", r, errno);
    for (size_t i = 0; i < sizeof(netlink) / sizeof(netlink[0]); i++) {
        r = syscall(SYS_socket, AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, netlink[i].protocol);
        report("netlink.", netlink[i].name, r, errno);
        if (r >= 0)
            close((int)r);
    }
    r = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv);
    report("", "socketpair.unix", r, errno);
    r = syscall(SYS_socketpair, 40, SOCK_STREAM, 0, sv);
    report("", "socketpair.vsock", r, errno);
}

#if defined(__x86_64__)
static long i386_call(long nr, long a, long b, long c)
{
    long ret;

    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    if (ret < 0 && ret > -4096) {
        errno = (int)-ret;
        return -1;
    }
    return ret;
}

/* Whether this kernel takes i386 calls at all: where ia32 emulation is
 * off, int 0x80 raises SIGSEGV instead of failing, so it is tried in a
 * child first. */
static bool i386_available(void)
{
    static int known = -1;
    int status;
    pid_t pid;

    if (known >= 0)
        return known == 1;
    pid = fork();
    if (pid == 0)
        _exit(i386_call(20 /* getpid */, 0, 0, 0) > 0 ? 0 : 1);
    known = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0;
    return known == 1;
}

static long i386_unshare_user(long unused)
{
    (void)unused;
    return i386_call(310 /* unshare */, CLONE_NEWUSER_, 0, 0);
}

static long x32_unshare_user(long unused)
{
    (void)unused;
    return syscall(0x40000000 | SYS_unshare, CLONE_NEWUSER_);
}

/* Denied calls through the compat ABIs: their numbers differ from the
 * native ones, so a filter written for one ABI only would miss them. */
static void compat(void)
{
    if (!i386_available()) {
        printf("i386=unavailable\n");
    } else {
        long r = i386_call(288 /* keyctl */, 0, -3, 0);
        report("i386.", "keyctl", r, errno);
        r = i386_call(136 /* personality */, PER_LINUX | ADDR_NO_RANDOMIZE, 0, 0);
        report("i386.", "personality", r, errno);
        in_child("i386.", "unshare.user", i386_unshare_user, 0);
    }
    if (syscall(0x40000000 | SYS_getpid) < 0) {
        printf("x32=unavailable\n");
    } else {
        long r = syscall(0x40000000 | SYS_keyctl, 0, -3, 0);
        report("x32.", "keyctl", r, errno);
        in_child("x32.", "unshare.user", x32_unshare_user, 0);
    }
}

/* AF_VSOCK through the compat ABIs: i386's direct socket (359) and its
 * socketcall multiplexer (102, arguments in memory below 4 GiB), x32. */
static void families_compat(void)
{
    if (!i386_available()) {
        printf("i386=unavailable\n");
    } else {
        unsigned *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        long r = i386_call(359 /* socket */, 40, SOCK_STREAM, 0);
        report("i386.", "socket.vsock", r, errno);
        r = i386_call(359, 1, SOCK_STREAM, 0);
        report("i386.", "socket.unix", r, errno);
        if (args != MAP_FAILED) {
            args[0] = 40, args[1] = SOCK_STREAM, args[2] = 0;
            r = i386_call(102 /* socketcall */, 1 /* SYS_SOCKET */, (long)args, 0);
            report("i386.", "socketcall.vsock", r, errno);
            args[0] = 1;
            r = i386_call(102, 1, (long)args, 0);
            report("i386.", "socketcall.unix", r, errno);
        }
    }
    if (syscall(0x40000000 | SYS_getpid) < 0) {
        printf("x32=unavailable\n");
    } else {
        long r = syscall(0x40000000 | SYS_socket, 40, SOCK_STREAM, 0);
        report("x32.", "socket.vsock", r, errno);
    }
}
#else
static void compat(void)
{
    printf("compat=unavailable\n");
}

static void families_compat(void)
{
    printf("compat=unavailable\n");
}
#endif

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "compat") == 0)
        compat();
    else if (argc > 1 && strcmp(argv[1], "families") == 0) {
        families_native();
        families_compat();
    } else
        native();
    return 0;
}
