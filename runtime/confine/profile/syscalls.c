/* The seccomp floor: the syscalls the agent (and, without its widenings,
 * revrun's helpers) can never make, whatever the config says. */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Denied with EPERM, always: the kernel's administrative interfaces and the
 * classic container-escape and kernel-attack surfaces. The agent holds no
 * capability, so most of these fail anyway; the filter keeps it that way if
 * a capability ever leaked, and shrinks the kernel code the agent can reach. */
static const char *const denied_always[] = {
    "keyctl", "add_key", "request_key",                 /* the kernel keyring */
    "bpf", "perf_event_open", "userfaultfd",            /* exploit primitives */
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "open_by_handle_at",                                /* escape via file handles */
    "acct", "swapon", "swapoff", "reboot", "syslog", "vhangup",
    "settimeofday", "clock_settime", "stime",
    "iopl", "ioperm", "quotactl", "quotactl_fd", "lookup_dcookie",
    "uselib", "nfsservctl", "_sysctl", "create_module", "get_kernel_syms", "query_module",
    "vm86", "vm86old", "pciconfig_iobase", "pciconfig_read", "pciconfig_write",
};

/* Denied unless revrun.nestedSandboxes: mounting, and making namespaces
 * (which is what would let the agent hold CAP_SYS_ADMIN somewhere). */
static const char *const denied_unless_nested[] = {
    "mount", "umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr",
};

/* Denied unless revrun.ptrace: reading or changing another process. */
static const char *const denied_unless_ptrace[] = {
    "ptrace", "process_vm_readv", "process_vm_writev",
};

#define CLONE_NS_FLAGS                                                                             \
    (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET |    \
     CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */)

static int push_rule(struct profile *p, struct syscall_rule r)
{
    struct syscall_rule *v =
        realloc(p->syscall_rules, (p->n_syscall_rules + 1) * sizeof(*p->syscall_rules));

    if (v == NULL)
        return -1;
    p->syscall_rules = v;
    v[p->n_syscall_rules++] = r;
    return 0;
}

static int deny_list(struct profile *p, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (push_rule(p, (struct syscall_rule){.name = names[i], .errnum = EPERM}) < 0)
            return -1;
    return 0;
}

/* A syscall fails when any one bit of `bits` is set in argument `arg`. */
static int deny_bits_as(struct profile *p, const char *name, unsigned arg, uint64_t bits,
                        unsigned char report)
{
    for (unsigned b = 0; b < 64; b++) {
        uint64_t bit = 1ULL << b;
        if ((bits & bit) &&
            push_rule(p, (struct syscall_rule){name, EPERM, SYSCALL_ARG_MASKED_EQ, arg, bit, bit, 0, 0, report}) <
                0)
            return -1;
    }
    return 0;
}

static int deny_bits(struct profile *p, const char *name, unsigned arg, uint64_t bits)
{
    return deny_bits_as(p, name, arg, bits, false);
}

/* personality: only PER_LINUX (0), PER_LINUX32 (8) and those with
 * UNAME26 (0x20000): no ADDR_NO_RANDOMIZE, no READ_IMPLIES_EXEC. Every other
 * value has a bit in 0..16 other than bit 3 set, or is above 0x20008. */
static int deny_personality(struct profile *p)
{
    if (push_rule(p, (struct syscall_rule){"personality", EPERM, SYSCALL_ARG_GE, 0, 0, 0x20009, 0, 0, false}) < 0)
        return -1;
    return deny_bits(p, "personality", 0, 0x1ffffULL & ~0x8ULL);
}

/* ioctl: TIOCSTI (push bytes into a terminal's input) and TIOCLINUX. The
 * request is compared on its low 32 bits only, as the kernel reads it: high
 * bits must not smuggle it past the filter. */
static int deny_ioctls(struct profile *p)
{
    static const uint64_t requests[] = {0x5412 /* TIOCSTI */, 0x541c /* TIOCLINUX */};

    for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
        if (push_rule(p, (struct syscall_rule){"ioctl", EPERM, SYSCALL_ARG_MASKED_EQ, 1,
                                               0xffffffffULL, requests[i], 0, 0, false}) < 0)
            return -1;
    return 0;
}

/* Socket families: the agent gets AF_UNIX, AF_INET, AF_INET6 and, for its
 * interface list only, AF_NETLINK with protocol NETLINK_ROUTE; nothing
 * else. The network namespace confines only families that are per netns:
 * AF_VSOCK (the hypervisor's and the VM's ports) is not, and AF_PACKET,
 * AF_XDP, AF_BLUETOOTH, AF_CAN and the rest are kernel attack surface no
 * agent needs. NETLINK_ROUTE is measured needed: without it Node's
 * os.networkInterfaces() throws; it sees only the namespace's loopback.
 * Other netlink protocols (audit, uevents, sock_diag, xfrm...) are not.
 * socket() and socketpair() fail with EAFNOSUPPORT, the family compared on
 * its low 32 bits as the kernel reads an int, and any value with a bit
 * above the 64 families refused by bit. On i386, libseccomp applies the
 * same rules to the socketcall multiplexer's SOCKET call, whose arguments
 * it cannot see: there every socketcall socket() is refused, and a 32-bit
 * program must use the direct socket() syscall (kernel 4.3+). Pinned by
 * integration/containment.bats "socket families". */
#define AF_NETLINK_ 16u

static bool family_allowed(unsigned f)
{
    return f == 1 /* AF_UNIX */ || f == 2 /* AF_INET */ || f == 10 /* AF_INET6 */;
}

static int deny_socket_families(struct profile *p)
{
    static const char *const calls[] = {"socket", "socketpair"};

    for (size_t c = 0; c < 2; c++) {
        for (unsigned f = 0; f < 64; f++) {
            struct syscall_rule r = {calls[c], EAFNOSUPPORT, SYSCALL_ARG_MASKED_EQ, 0,
                                     0xffffffffULL, f, 0, 0, false};
            if (family_allowed(f))
                continue;
            if (c == 0 && f == AF_NETLINK_)
                r.ne_arg = 1 + 2, r.ne = 0; /* protocol NETLINK_ROUTE only */
            if (push_rule(p, r) < 0)
                return -1;
        }
        for (unsigned b = 6; b < 32; b++)
            if (push_rule(p, (struct syscall_rule){calls[c], EAFNOSUPPORT, SYSCALL_ARG_MASKED_EQ,
                                                   0, 1ULL << b, 1ULL << b, 0, 0, false}) < 0)
                return -1;
    }
    return 0;
}

/* [0] A floor with a listener (the monitor's) keeps the agent from making
 * one: where two filters both ask for a user notification the newest wins,
 * so an agent's own listener would be answered first (CONTINUE on its
 * unshare, an exec kept out of the record). The kernel refuses a second
 * listener only while the monitor holds its own; this holds after it lets
 * go too. [1], [2] The activity record: every execve and execveat reaches
 * the monitor, which records it and lets it run. */
static const struct syscall_rule record_rules[PF_RECORD_RULES] = {
    {"seccomp", EPERM, SYSCALL_ARG_MASKED_EQ, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER,
     SECCOMP_FILTER_FLAG_NEW_LISTENER, 0, 0, 0},
    {.name = "execve", .report = SYSCALL_RECORD},
    {.name = "execveat", .report = SYSCALL_RECORD},
};

static int deny_listeners(struct profile *p)
{
    return push_rule(p, record_rules[0]);
}

static int record_execs(struct profile *p)
{
    return push_rule(p, record_rules[1]) < 0 ? -1 : push_rule(p, record_rules[2]);
}

size_t pf_record_rules(struct syscall_rule *out)
{
    memcpy(out, record_rules, sizeof(record_rules));
    return PF_RECORD_RULES;
}

int pf_build_syscall_rules(struct profile *p, struct rr_error *err)
{
    int r = deny_list(p, denied_always, sizeof(denied_always) / sizeof(denied_always[0]));

    if (r == 0 && (p->report_namespaces || p->record_execs))
        r = deny_listeners(p);
    if (r == 0 && p->record_execs)
        r = record_execs(p);
    /* Joining other namespaces: refused always; an agent's attempt is
     * counted when its own sandbox is what is refused. */
    if (r == 0)
        r = push_rule(p, (struct syscall_rule){.name = "setns", .errnum = EPERM,
                                               .report = p->report_namespaces});
    if (r == 0)
        r = deny_personality(p);
    if (r == 0)
        r = deny_socket_families(p);
    if (r == 0)
        r = deny_ioctls(p);
    if (r == 0 && !p->allow_ptrace)
        r = deny_list(p, denied_unless_ptrace,
                      sizeof(denied_unless_ptrace) / sizeof(denied_unless_ptrace[0]));
    if (r == 0 && !p->allow_nested_sandboxes) {
        r = deny_list(p, denied_unless_nested,
                      sizeof(denied_unless_nested) / sizeof(denied_unless_nested[0]));
        if (r == 0)
            r = deny_bits_as(p, "unshare", 0, CLONE_NS_FLAGS, p->report_namespaces);
        if (r == 0)
            r = deny_bits_as(p, "clone", 0, CLONE_NS_FLAGS, p->report_namespaces);
        /* clone3 passes its flags in memory, out of the filter's sight: it
         * fails with ENOSYS so that glibc falls back to clone (EPERM would
         * break thread creation in glibc 2.34+). */
        if (r == 0)
            r = push_rule(p, (struct syscall_rule){.name = "clone3", .errnum = ENOSYS});
    }
    if (r < 0)
        return rr_fail(err, ENOMEM, "seccomp rules");
    return 0;
}
int profile_helper_floor(struct profile *p, struct rr_error *err)
{
    memset(p, 0, sizeof(*p));
    if (pf_build_syscall_rules(p, err) < 0) {
        profile_free(p);
        return -1;
    }
    return 0;
}
