#include "runtime/confine/seccomp.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

/* The ABIs a process on this host can call the kernel through: the native
 * one and the compat ones the kernel also accepts (x86-64: i386 and x32;
 * aarch64: arm). Each gets the same rules; any other is killed. */
static int add_arches(scmp_filter_ctx ctx, struct rr_error *err)
{
    static const struct {
        uint32_t native;
        uint32_t compat[2];
    } families[] = {
        {SCMP_ARCH_X86_64, {SCMP_ARCH_X86, SCMP_ARCH_X32}},
        {SCMP_ARCH_AARCH64, {SCMP_ARCH_ARM, 0}},
    };
    uint32_t native = seccomp_arch_native();

    for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
        if (families[i].native != native)
            continue;
        for (size_t j = 0; j < 2 && families[i].compat[j] != 0; j++) {
            int r = seccomp_arch_add(ctx, families[i].compat[j]);
            if (r < 0 && r != -EEXIST)
                return rr_fail(err, -r, "seccomp: add compat architecture");
        }
    }
    return 0;
}

static scmp_filter_ctx new_filter(uint32_t default_action, struct rr_error *err)
{
    scmp_filter_ctx ctx = seccomp_init(default_action);

    if (ctx == NULL) {
        rr_fail(err, ENOMEM, "seccomp_init");
        return NULL;
    }
    /* revrun sets no_new_privs itself; the arch mismatch action is a kill. */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) < 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0) {
        seccomp_release(ctx);
        rr_fail(err, EINVAL, "seccomp attributes");
        return NULL;
    }
    return ctx;
}

static int export_bpf(scmp_filter_ctx ctx, struct sock_fprog *out, struct rr_error *err)
{
    _cleanup_close_ int fd = (int)syscall(SYS_memfd_create, "revrun-seccomp", MFD_CLOEXEC);
    struct stat st;
    void *buf;
    int r;

    if (fd < 0)
        return rr_fail(err, errno, "seccomp: memfd");
    r = seccomp_export_bpf(ctx, fd);
    if (r < 0)
        return rr_fail(err, -r, "seccomp: export");
    if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) != 0)
        return rr_fail(err, EINVAL, "seccomp: exported program has a bad size");
    buf = malloc((size_t)st.st_size);
    if (buf == NULL)
        return rr_fail(err, ENOMEM, "seccomp");
    if (pread(fd, buf, (size_t)st.st_size, 0) != st.st_size) {
        free(buf);
        return rr_fail(err, EIO, "seccomp: read program");
    }
    out->len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
    out->filter = buf;
    return 0;
}

static int add_floor_rule(scmp_filter_ctx ctx, const struct syscall_rule *r, struct rr_error *err)
{
    int nr = seccomp_syscall_resolve_name(r->name);
    uint32_t act = r->report ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO((uint32_t)r->errnum);
    struct scmp_arg_cmp cmp[2];
    unsigned n = r->ne_arg ? 2 : 1;
    int rc;

    if (nr == __NR_SCMP_ERROR)
        return rr_fail(err, EINVAL,
                       "seccomp: libseccomp does not know the syscall \"%s\", so revrun cannot "
                       "deny it (a newer libseccomp is needed)", r->name);
    switch (r->test) {
    case SYSCALL_ALWAYS:
        n = 0;
        break;
    case SYSCALL_ARG_MASKED_EQ:
        cmp[0] = (struct scmp_arg_cmp){r->arg, SCMP_CMP_MASKED_EQ, r->mask, r->datum};
        break;
    default:
        cmp[0] = (struct scmp_arg_cmp){r->arg, SCMP_CMP_GE, r->datum, 0};
        break;
    }
    if (n == 2)
        cmp[1] = (struct scmp_arg_cmp){r->ne_arg - 1, SCMP_CMP_NE, r->ne, 0};
    rc = seccomp_rule_add_array(ctx, act, nr, n, cmp);
    /* A syscall this architecture does not have (iopl on aarch64) cannot be
     * called here; libseccomp then adds it for the ABIs that have it. */
    if (rc < 0 && nr < 0)
        return 0;
    if (rc < 0)
        return rr_fail(err, -rc, "seccomp: rule for %s", r->name);
    return 0;
}

static int compile_floor(const struct profile *p, struct sock_fprog *out, struct rr_error *err)
{
    scmp_filter_ctx ctx = new_filter(SCMP_ACT_ALLOW, err);
    int r = -1;

    if (ctx == NULL)
        return -1;
    if (add_arches(ctx, err) < 0)
        goto out;
    for (size_t i = 0; i < p->n_syscall_rules; i++)
        if (add_floor_rule(ctx, &p->syscall_rules[i], err) < 0)
            goto out;
    r = export_bpf(ctx, out, err);
out:
    seccomp_release(ctx);
    return r;
}

/* ---- linux.seccomp ---- */

static uint32_t action_of(enum rr_seccomp_action a, uint32_t errnum)
{
    switch (a) {
    case RR_SCMP_ALLOW: return SCMP_ACT_ALLOW;
    case RR_SCMP_ERRNO: return SCMP_ACT_ERRNO(errnum);
    case RR_SCMP_KILL: return SCMP_ACT_KILL;
    case RR_SCMP_KILL_PROCESS: return SCMP_ACT_KILL_PROCESS;
    case RR_SCMP_TRAP: return SCMP_ACT_TRAP;
    case RR_SCMP_LOG: return SCMP_ACT_LOG;
    }
    return SCMP_ACT_KILL_PROCESS;
}

static int oci_arches(scmp_filter_ctx ctx, const struct rr_seccomp *s, struct rr_error *err)
{
    if (s->architectures.n == 0)
        return add_arches(ctx, err);
    for (size_t i = 0; i < s->architectures.n; i++) {
        const char *name = s->architectures.v[i];
        char lower[32];
        size_t j;
        uint32_t arch;
        int r;

        if (strncmp(name, "SCMP_ARCH_", 10) == 0)
            name += 10;
        for (j = 0; name[j] != '\0' && j + 1 < sizeof(lower); j++)
            lower[j] = (char)(name[j] >= 'A' && name[j] <= 'Z' ? name[j] + 32 : name[j]);
        lower[j] = '\0';
        arch = seccomp_arch_resolve_name(lower);
        if (arch == 0)
            return rr_fail(err, EINVAL, "linux.seccomp.architectures: unknown %s",
                           s->architectures.v[i]);
        r = seccomp_arch_add(ctx, arch);
        if (r < 0 && r != -EEXIST)
            return rr_fail(err, -r, "linux.seccomp.architectures: %s", s->architectures.v[i]);
    }
    return 0;
}

static int oci_rule(scmp_filter_ctx ctx, const struct rr_seccomp *s, size_t i,
                    struct rr_error *err)
{
    static const enum scmp_compare ops[] = {
        [RR_SCMP_OP_NE] = SCMP_CMP_NE, [RR_SCMP_OP_LT] = SCMP_CMP_LT,
        [RR_SCMP_OP_LE] = SCMP_CMP_LE, [RR_SCMP_OP_EQ] = SCMP_CMP_EQ,
        [RR_SCMP_OP_GE] = SCMP_CMP_GE, [RR_SCMP_OP_GT] = SCMP_CMP_GT,
        [RR_SCMP_OP_MASKED_EQ] = SCMP_CMP_MASKED_EQ};
    const struct rr_seccomp_rule *rule = &s->rules[i];
    uint32_t action = action_of(rule->action, rule->errno_ret);
    struct scmp_arg_cmp cmp[6];

    if (action == action_of(s->default_action, s->default_errno))
        return 0; /* the default already does it */
    for (size_t a = 0; a < rule->n_args; a++)
        cmp[a] = (struct scmp_arg_cmp){rule->args[a].index, ops[rule->args[a].op],
                                       rule->args[a].value, rule->args[a].value_two};
    for (size_t n = 0; n < rule->names.n; n++) {
        int nr = seccomp_syscall_resolve_name(rule->names.v[n]);
        int r;
        if (nr == __NR_SCMP_ERROR) {
            /* Allowing what libseccomp does not know is moot; denying it
             * is not something revrun can do, so that is refused. */
            if (rule->action == RR_SCMP_ALLOW)
                continue;
            return rr_fail(err, EINVAL, "linux.seccomp.syscalls[%zu]: unknown syscall %s", i,
                           rule->names.v[n]);
        }
        r = seccomp_rule_add_array(ctx, action, nr, (unsigned)rule->n_args, cmp);
        if (r < 0 && !(nr < 0 && rule->n_args == 0))
            return rr_fail(err, -r, "linux.seccomp.syscalls[%zu]: %s", i, rule->names.v[n]);
    }
    return 0;
}

static int compile_oci(const struct rr_seccomp *s, struct sock_fprog *out, struct rr_error *err)
{
    scmp_filter_ctx ctx = new_filter(action_of(s->default_action, s->default_errno), err);
    int r = -1;

    if (ctx == NULL)
        return -1;
    if (oci_arches(ctx, s, err) < 0)
        goto out;
    for (size_t i = 0; i < s->n_rules; i++)
        if (oci_rule(ctx, s, i, err) < 0)
            goto out;
    r = export_bpf(ctx, out, err);
out:
    seccomp_release(ctx);
    return r;
}

int seccomp_compile(const struct profile *p, struct seccomp_progs *out, struct rr_error *err)
{
    memset(out, 0, sizeof(*out));
    if (compile_floor(p, &out->prog[0], err) < 0)
        return -1;
    out->n = 1;
    for (size_t i = 0; i < p->n_syscall_rules; i++)
        out->notify = out->notify || p->syscall_rules[i].report != 0;
    if (p->oci_seccomp != NULL) {
        if (compile_oci(p->oci_seccomp, &out->prog[1], err) < 0) {
            seccomp_progs_free(out);
            return -1;
        }
        out->n = 2;
    }
    return 0;
}

int seccomp_compile_helper(struct seccomp_progs *out, struct rr_error *err)
{
    struct profile helper;
    int r;

    if (profile_helper_floor(&helper, err) < 0)
        return -1;
    r = seccomp_compile(&helper, out, err);
    profile_free(&helper);
    return r < 0 ? rr_wrap(err, "the helpers' seccomp floor") : 0;
}

void seccomp_progs_free(struct seccomp_progs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->prog[i].filter);
    memset(s, 0, sizeof(*s));
}

int seccomp_progs_load_agent(const struct seccomp_progs *s, int *listener)
{
    long fd;

    *listener = -1;
    if (!s->notify)
        return seccomp_progs_load(s);
    /* The floor with a listener: its notifications go to whoever holds
     * the fd (the monitor); the rest stacked on it as usual. */
    fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                 &s->prog[0]);
    if (fd < 0)
        return -1;
    *listener = (int)fd;
    for (size_t i = 1; i < s->n; i++)
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &s->prog[i]) < 0)
            return -1;
    return 0;
}

int seccomp_progs_load(const struct seccomp_progs *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &s->prog[i]) < 0)
            return -1;
    return 0;
}
