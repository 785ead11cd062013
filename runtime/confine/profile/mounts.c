/* What is mounted where, and with which flags: a review's mounts
 * (judge_mounts, judge_terminal) and an engine's (engine_mount). */
#include "runtime/confine/profile/internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/libmnt.h"

/* Options with a ',' or control bytes cannot be told apart from two options
 * once joined for libmount: refused. */
static int join_options(const struct rr_strv *opts, const char *path, char **out,
                        struct rr_error *err)
{
    size_t len = 1;
    char *s;

    for (size_t i = 0; i < opts->n; i++) {
        for (const char *c = opts->v[i]; *c; c++)
            if (*c == ',' || (unsigned char)*c < 0x20 || *c == '"')
                return rr_fail(err, 0, "%s.options[%zu]: invalid character", path, i);
        len += strlen(opts->v[i]) + 1;
    }
    s = calloc(1, len);
    if (s == NULL)
        return rr_fail(err, ENOMEM, "%s", path);
    for (size_t i = 0; i < opts->n; i++) {
        if (i > 0)
            strcat(s, ",");
        strcat(s, opts->v[i]);
    }
    *out = s;
    return 0;
}

/* Filesystem options a mount type may take; anything else is refused. */
static bool fs_option_allowed(enum mount_kind kind, const char *opt)
{
    static const char *const tmpfs[] = {"size", "mode", "nr_inodes", "uid", "gid", NULL};
    static const char *const devpts[] = {"newinstance", "ptmxmode", "mode", "gid", NULL};
    static const char *const proc[] = {"hidepid", "subset", NULL};
    const char *const *allowed = kind == MOUNT_TMPFS    ? tmpfs
                                 : kind == MOUNT_DEVPTS ? devpts
                                 : kind == MOUNT_PROC   ? proc
                                                        : NULL;
    size_t klen = strcspn(opt, "=");

    for (; allowed && *allowed; allowed++)
        if (strlen(*allowed) == klen && strncmp(*allowed, opt, klen) == 0)
            return true;
    return false;
}

static int split_fs_options(const char *fs, enum mount_kind kind, struct mount_plan *mp,
                            const char *path, struct rr_error *err)
{
    const char *p = fs;

    while (p != NULL && *p != '\0') {
        size_t n = strcspn(p, ",");
        char opt[256];
        if (n >= sizeof(opt))
            return rr_fail(err, 0, "%s.options: option too long", path);
        memcpy(opt, p, n);
        opt[n] = '\0';
        if (!fs_option_allowed(kind, opt))
            return rr_fail(err, 0, "%s.options: \"%s\" is not supported for this mount type",
                           path, opt);
        if (strv_push(&mp->fs_options, opt) < 0)
            return rr_fail(err, ENOMEM, "%s", path);
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static const struct {
    const char *name;
    unsigned long flag;
    bool rec;
} propagations[] = {
    {"shared", MS_SHARED, false},         {"rshared", MS_SHARED, true},
    {"slave", MS_SLAVE, false},           {"rslave", MS_SLAVE, true},
    {"private", MS_PRIVATE, false},       {"rprivate", MS_PRIVATE, true},
    {"unbindable", MS_UNBINDABLE, false}, {"runbindable", MS_UNBINDABLE, true},
};

int pf_propagation_by_name(const char *name, unsigned long *flag, bool *rec)
{
    for (size_t k = 0; k < sizeof(propagations) / sizeof(propagations[0]); k++)
        if (strcmp(propagations[k].name, name) == 0) {
            *flag = propagations[k].flag;
            *rec = propagations[k].rec;
            return 0;
        }
    return -1;
}

/* An engine mount's propagation option (the last one given, as the kernel
 * would end up with applying them in turn); none: 0. */
static void propagation_of(const struct rr_strv *options, unsigned long *flag, bool *rec)
{
    *flag = 0;
    *rec = false;
    for (size_t i = 0; i < options->n; i++)
        (void)pf_propagation_by_name(options->v[i], flag, rec);
}

/* OCI mount options -> mount attributes. nosuid and nodev are forced on
 * every mount but devpts (the device nodes revrun binds into /dev are
 * separate mounts that keep their own flags); binds are read-only unless
 * "rw" is explicit; shared propagation (which could leak mounts back to the
 * host) is refused. */
static int judge_options(const struct rr_mount *m, struct mount_plan *mp, const char *path,
                         bool engine, bool *data_ignored, struct rr_error *err)
{
    _cleanup_free_ char *optstr = NULL;
    _cleanup_free_ char *vfs = NULL;
    _cleanup_free_ char *fs = NULL;
    unsigned long flags = 0;

    if (strv_contains(&m->options, "suid") || strv_contains(&m->options, "dev"))
        return rr_fail(err, 0, "%s.options: suid and dev are not allowed", path);
    if (join_options(&m->options, path, &optstr, err) < 0)
        return -1;
    if (rr_libmnt_load(err) < 0)
        return rr_wrap(err, "%s.options", path);
    if (mnt_split_optstr(optstr, NULL, &vfs, &fs, 0, 0) != 0)
        return rr_fail(err, 0, "%s.options: cannot parse", path);
    if (vfs != NULL && mnt_optstr_get_flags(vfs, &flags, mnt_get_builtin_optmap(MNT_LINUX_MAP)) != 0)
        return rr_fail(err, 0, "%s.options: cannot parse", path);
    if (flags & ((engine ? 0 : MS_SHARED) | MS_MOVE | MS_REMOUNT | MS_MANDLOCK | MS_SILENT))
        return rr_fail(err, 0, "%s.options: shared propagation, move and remount are refused",
                       path);
    if (engine)
        propagation_of(&m->options, &mp->propagation, &mp->propagation_rec);
    /* devpts holds only the pty nodes of its own instance, which nodev
     * would make unusable. */
    mp->attr = MOUNT_ATTR_NOSUID | (mp->kind == MOUNT_DEVPTS ? 0 : MOUNT_ATTR_NODEV);
    if (flags & MS_NOEXEC)
        mp->attr |= MOUNT_ATTR_NOEXEC;
    if (flags & MS_NOATIME)
        mp->attr |= MOUNT_ATTR_NOATIME;
    else if (flags & MS_STRICTATIME)
        mp->attr |= MOUNT_ATTR_STRICTATIME;
    if (flags & MS_NODIRATIME)
        mp->attr |= MOUNT_ATTR_NODIRATIME;
    /* revrun's own bundles: binds read-only unless "rw"; an engine's, as
     * the runtime spec has them (read-write unless "ro"): the engine's
     * binds are its own files (/etc/hosts, /dev/shm), not the host's. */
    if ((flags & MS_RDONLY) ||
        (mp->kind == MOUNT_BIND && !engine && !strv_contains(&m->options, "rw")))
        mp->attr |= MOUNT_ATTR_RDONLY;
    mp->recursive = mp->kind == MOUNT_BIND && (flags & MS_REC) != 0;
    /* A bind has no filesystem to take data options: the kernel ignores
     * them, and so do runc and an engine's configs here; revrun's own
     * bundles refuse them (a typo there is the operator's). */
    *data_ignored = engine && mp->kind == MOUNT_BIND && fs != NULL && fs[0] != '\0';
    if (*data_ignored)
        return 0;
    if (mp->kind == MOUNT_BIND && fs != NULL && fs[0] != '\0')
        return rr_fail(err, 0, "%s.options: \"%s\" does not apply to a bind mount", path, fs);
    return split_fs_options(fs, mp->kind, mp, path, err);
}
static int judge_mount(const struct rr_config *c, size_t i, struct mount_plan *mp,
                       struct rr_error *err)
{
    static const struct {
        const char *type;
        enum mount_kind kind;
    } kinds[] = {{"bind", MOUNT_BIND},
                 {"tmpfs", MOUNT_TMPFS},
                 {"proc", MOUNT_PROC},
                 {"devpts", MOUNT_DEVPTS},
                 {"mqueue", MOUNT_MQUEUE}};
    const struct rr_mount *m = &c->mounts[i];
    char path[64];
    size_t k;

    snprintf(path, sizeof(path), "mounts[%zu]", i);
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strcmp(kinds[k].type, m->type) == 0)
            break;
    if (k == sizeof(kinds) / sizeof(kinds[0]))
        return rr_fail(err, 0, "%s.type: \"%s\" is not supported (bind, tmpfs, proc, devpts, "
                               "mqueue)", path, m->type);
    if (strcmp(m->destination, "/") == 0 || pf_path_within(m->destination, c->revrun.checkout_path))
        return rr_fail(err, 0,
                       "%s.destination: would cover the root or the checkout at %s", path,
                       c->revrun.checkout_path);
    *mp = (struct mount_plan){.kind = kinds[k].kind, .source = m->source,
                              .destination = m->destination};
    mp->is_dev = mp->kind == MOUNT_TMPFS && strcmp(m->destination, "/dev") == 0;
    if (mp->kind == MOUNT_PROC && strcmp(m->destination, "/proc") != 0)
        return rr_fail(err, 0, "%s: proc may only be mounted at /proc", path);
    bool ignored = false;
    return judge_options(m, mp, path, false, &ignored, err);
}

/* A read-write bind must not overlap a host directory revrun itself writes
 * what the operator is shown: `run --out` (vetted when the agent exits)
 * and a job's results (the change set, summary and report of `review
 * --out`). Reaching either directly, the agent could plant symlinks or
 * rewrite the summary after the vetting. A directory not made yet is
 * compared by the absolute path the caller gave. */
static int judge_bind_keeps_off(const char *src, const char *dir, const char *what, size_t i,
                                struct rr_error *err)
{
    char real[PATH_MAX];

    if (dir == NULL)
        return 0;
    if (realpath(dir, real) == NULL) {
        if (errno != ENOENT)
            return rr_fail(err, errno, "%s %s", what, dir);
        if (snprintf(real, sizeof(real), "%s", dir) >= (int)sizeof(real))
            return rr_fail(err, ENAMETOOLONG, "%s", what);
    }
    if (strcmp(src, "/") == 0 || pf_path_within(src, real) || pf_path_within(real, src))
        return rr_fail(err, 0, "mounts[%zu]: a read-write bind of %s would reach %s %s", i,
                       src, what, real);
    return 0;
}

/* A bind lands nowhere revrun builds itself (the kernel's /proc and /sys,
 * the container's /dev); a read-write one is a host path the agent writes
 * to directly, outside the vetted change set: allowed when written (the
 * config says it; `--bind ...:rw` says it once more on the command line),
 * and refused where it would reach the checkout itself (write-back would
 * be bypassed), the directories revrun hands results in, or the host's
 * system trees. */
static int judge_bind(const struct rr_config *c, size_t i, struct profile *p,
                      struct rr_error *err)
{
    static const char *const no_dest[] = {"/proc", "/sys", "/dev"};
    static const char *const no_rw[] = {"/proc", "/sys", "/dev", "/usr", "/etc", "/bin",
                                        "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot",
                                        "/run", "/var"};
    const struct rr_mount *m = &c->mounts[i];
    const struct mount_plan *mp = &p->mounts[i];
    char src[PATH_MAX], lower[PATH_MAX];

    for (size_t k = 0; k < sizeof(no_dest) / sizeof(no_dest[0]); k++)
        if (pf_path_within(m->destination, no_dest[k]))
            return rr_fail(err, 0, "mounts[%zu].destination: a bind over %s is refused", i,
                           no_dest[k]);
    if (mp->attr & MOUNT_ATTR_RDONLY)
        return 0;
    if (realpath(m->source, src) == NULL)
        return rr_fail(err, errno, "mounts[%zu].source %s", i, m->source);
    if (realpath(c->revrun.lower, lower) == NULL)
        return rr_fail(err, errno, "revrun.lower %s", c->revrun.lower);
    if (strcmp(src, "/") == 0 || pf_path_within(src, lower) || pf_path_within(lower, src))
        return rr_fail(err, 0, "mounts[%zu]: a read-write bind of %s would reach the checkout %s",
                       i, src, lower);
    if (judge_bind_keeps_off(src, c->revrun.out, "revrun.out", i, err) < 0 ||
        judge_bind_keeps_off(src, c->revrun.results, "the results directory", i, err) < 0)
        return -1;
    for (size_t k = 0; k < sizeof(no_rw) / sizeof(no_rw[0]); k++)
        if (pf_path_within(src, no_rw[k]))
            return rr_fail(err, 0, "mounts[%zu]: %s may only be bound read-only", i, src);
    return 0;
}

/* revrun.out (`run --out DIR`): the agent writes /out, a tmpfs capped at
 * the upper's size (it wrote 3 GiB into a bound host directory against a
 * 1 GiB upper), never the host directory itself; when it exits, only the
 * regular files and directories are copied there (runtime/container/
 * outdir.c): symlinks to host secrets and fifos planted for whoever
 * collects the directory are removed and reported. */
static int judge_out(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    struct mount_plan *mp;

    p->out_dir = c->revrun.out;
    p->out_size = c->revrun.upper_size;
    if (p->out_dir == NULL)
        return 0;
    for (size_t i = 0; i < p->n_mounts; i++)
        if (pf_path_within(p->mounts[i].destination, "/out") ||
            pf_path_within("/out", p->mounts[i].destination))
            return rr_fail(err, 0, "revrun.out: mounts[%zu] covers /out", i);
    mp = &p->mounts[p->n_mounts++]; /* pf_judge_mounts left room */
    *mp = (struct mount_plan){.kind = MOUNT_OUT, .destination = "/out",
                              .attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    return 0;
}

int pf_judge_mounts(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    /* room for the devpts of pf_judge_terminal and the /out of judge_out */
    p->mounts = calloc(c->n_mounts + 2, sizeof(*p->mounts));
    if (p->mounts == NULL)
        return rr_fail(err, ENOMEM, "mounts");
    for (size_t i = 0; i < c->n_mounts; i++) {
        p->n_mounts++;
        if (judge_mount(c, i, &p->mounts[i], err) < 0)
            return -1;
        if (p->mounts[i].kind == MOUNT_BIND && judge_bind(c, i, p, err) < 0)
            return -1;
    }
    return judge_out(c, p, err);
}

/* process.terminal: the agent gets a fresh pty of a devpts instance of its
 * own (never a terminal of the host) as its controlling terminal and stdio;
 * the master goes to the caller through --console-socket. A devpts is added
 * at /dev/pts unless the config mounts one there. Without it, the agent has
 * no controlling terminal at all. */
int pf_judge_terminal(const struct rr_config *c, struct profile *p, struct rr_error *err)
{
    static const char *const devpts_opts[] = {"newinstance", "ptmxmode=0666", "mode=0620"};
    struct mount_plan *mp;
    bool have_dev = false;

    p->terminal = c->process.terminal;
    /* Without one, the caller's terminal (a `revrun run ... &` or a
     * detached create on a shell's tty) is never input for the agent: it
     * would read what the operator types to the shell (a password). */
    p->stdio_no_tty_input = !p->terminal;
    if (!p->terminal)
        return 0;
    for (size_t i = 0; i < p->n_mounts; i++) {
        if (p->mounts[i].kind == MOUNT_DEVPTS && strcmp(p->mounts[i].destination, "/dev/pts") == 0)
            return 0;
        have_dev = have_dev || p->mounts[i].is_dev;
    }
    if (!have_dev)
        return rr_fail(err, 0, "process.terminal: needs a tmpfs mounted at /dev for the pty");
    mp = &p->mounts[p->n_mounts++]; /* pf_judge_mounts left room for one */
    *mp = (struct mount_plan){.kind = MOUNT_DEVPTS, .destination = "/dev/pts",
                              .attr = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC};
    if (pf_push_all(&mp->fs_options, devpts_opts, sizeof(devpts_opts) / sizeof(devpts_opts[0])) < 0)
        return rr_fail(err, ENOMEM, "process.terminal");
    return 0;
}
bool pf_host_cgroup_v2(void)
{
    return access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
}

/* sysfs and cgroup mounts, tightened: read-only. A cgroup v1 host's
 * cgroup mount is an empty read-only tmpfs (its hierarchies cannot be
 * mounted from revrun's user namespace). sysfs of a joined network
 * namespace the host's user namespace owns (containerd makes a CNI pod's
 * itself, in the host's; or a config names one by path) is made on the
 * host side, as runc mounts it: see engine_host_made. */
static int engine_special_mount(const struct rr_mount *m, struct mount_plan *mp, size_t i,
                                struct profile *p, struct rr_error *err)
{
    bool sysfs = strcmp(m->type, "sysfs") == 0;
    /* a joined network namespace is the container's user namespace's only
     * in a pod (its user namespace joined with it), and only when the pod
     * made it */
    bool net_foreign = (p->eng.join_flags & CLONE_NEWNET) &&
                       (p->eng.pod == NULL || p->eng.pod->net_host_owned);
    bool placeholder = !sysfs && !pf_host_cgroup_v2();

    if (!strv_contains(&m->options, "ro") &&
        pf_note(p, "mounts[%zu]: %s at %s tightened to read-only", i, m->type, m->destination) < 0)
        return rr_fail(err, ENOMEM, "notes");
    mp->kind = placeholder ? MOUNT_TMPFS : sysfs ? MOUNT_SYSFS : MOUNT_CGROUP2;
    mp->ro_after = placeholder;
    mp->attr = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
    if (placeholder &&
        (strv_push(&mp->fs_options, "size=4k") < 0 || strv_push(&mp->fs_options, "mode=0555") < 0 ||
         pf_note(p, "mounts[%zu]: %s at %s replaced by an empty read-only tmpfs (cgroup v1 "
                    "hierarchies cannot be mounted from revrun's user namespace)",
                 i, m->type, m->destination) < 0))
        return rr_fail(err, ENOMEM, "mounts");
    if (sysfs && net_foreign) {
        mp->host_made = true;
        if (pf_note(p, "mounts[%zu]: sysfs at %s made by revrun on the host side, in the joined "
                       "network namespace (the host's user namespace owns it: the container's "
                       "cannot mount it), read-only",
                    i, m->destination) < 0)
            return rr_fail(err, ENOMEM, "notes");
    }
    return 0;
}

/* mqueue of a joined IPC namespace, proc of a joined pid namespace, when
 * the host's user namespace owns them (joined without a pod:
 * runtime/container/engine_pod.c resolved every joined namespace to the
 * host's), and sysfs of a host-owned network namespace (engine_special_mount,
 * a pod's too): the kernel lets only a holder of CAP_SYS_ADMIN over that
 * owner mount them, which the container's own user namespace is not.
 * create makes them there as root, in that namespace; they show the
 * namespace the container has joined anyway, and its files keep their host
 * owners, so the container's ids (unprivileged on the host) get what any
 * process of the host gets: runc's view of a namespace it joins by path.
 * linux.maskedPaths cover sysfs after it is attached, as under runc. */
static int engine_host_made(struct mount_plan *mp, const char *path, struct profile *p,
                            struct rr_error *err)
{
    unsigned ns = mp->kind == MOUNT_MQUEUE ? CLONE_NEWIPC : mp->kind == MOUNT_PROC ? CLONE_NEWPID
                                                                                   : 0;

    if (ns == 0 || !(p->eng.join_flags & ns) || p->eng.pod != NULL)
        return 0;
    mp->host_made = true;
    if (pf_note(p, "%s: %s made by revrun on the host side, in the joined %s namespace (the "
                   "host's user namespace owns it: the container's cannot mount it)",
                path, mp->kind == MOUNT_PROC ? "proc" : "mqueue",
                ns == CLONE_NEWPID ? "pid" : "IPC") < 0)
        return rr_fail(err, ENOMEM, "notes");
    return 0;
}

int pf_engine_mount(const struct rr_config *c, size_t i, struct mount_plan *mp,
                        struct profile *p, struct rr_error *err)
{
    static const struct {
        const char *type;
        enum mount_kind kind;
    } kinds[] = {{"bind", MOUNT_BIND},     {"tmpfs", MOUNT_TMPFS}, {"proc", MOUNT_PROC},
                 {"devpts", MOUNT_DEVPTS}, {"mqueue", MOUNT_MQUEUE}};
    const struct rr_mount *m = &c->mounts[i];
    char path[64];
    size_t k;

    snprintf(path, sizeof(path), "mounts[%zu]", i);
    if (strcmp(m->destination, "/") == 0)
        return rr_fail(err, 0, "%s.destination: would cover the root (root.path is the root)",
                       path);
    *mp = (struct mount_plan){.source = m->source, .destination = m->destination,
                              .fs_source = m->source};
    if (strcmp(m->type, "sysfs") == 0 || strcmp(m->type, "cgroup") == 0 ||
        strcmp(m->type, "cgroup2") == 0)
        return engine_special_mount(m, mp, i, p, err);
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
        if (strcmp(kinds[k].type, m->type) == 0)
            break;
    if (k == sizeof(kinds) / sizeof(kinds[0]))
        return rr_fail(err, 0, "%s.type: \"%s\" refused (bind, tmpfs, proc, devpts, mqueue, "
                               "sysfs and cgroup are what a container mounts)", path, m->type);
    mp->kind = kinds[k].kind;
    mp->is_dev = mp->kind == MOUNT_TMPFS && strcmp(m->destination, "/dev") == 0;
    if (mp->kind == MOUNT_PROC && strcmp(m->destination, "/proc") != 0)
        return rr_fail(err, 0, "%s: proc may only be mounted at /proc", path);
    bool ignored = false;
    if (judge_options(m, mp, path, true, &ignored, err) < 0)
        return -1;
    if (ignored && pf_note(p, "%s.options: filesystem data options of a bind mount ignored (the "
                              "kernel takes none)", path) < 0)
        return rr_fail(err, ENOMEM, "notes");
    return engine_host_made(mp, path, p, err);
}
