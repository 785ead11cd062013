/* Host probes for `revrun check`. Each risky probe runs in a forked child, so
 * whatever namespace or mount it makes goes away with it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"
#include "common/mountapi.h"
#include "runtime/confine/cgroup.h"
#include "runtime/check/check.h"

#define AA_SYSCTL "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"

/* Run fn in a child; its message (or "") comes back in msg. Returns the
 * errno the child reported, 0 on success. */
static int in_child(int (*fn)(char *msg, size_t len), char *msg, size_t len)
{
    int p[2];
    pid_t pid;
    int status, e = EIO;

    msg[0] = '\0';
    if (pipe2(p, O_CLOEXEC) < 0)
        return errno;
    pid = fork();
    if (pid < 0)
        return errno;
    if (pid == 0) {
        char buf[512] = "";
        int r = fn(buf, sizeof(buf));
        if (write(p[1], &r, sizeof(r)) < 0 || write(p[1], buf, strlen(buf)) < 0)
            _exit(1);
        _exit(0);
    }
    close(p[1]);
    if (read(p[0], &e, sizeof(e)) == (ssize_t)sizeof(e)) {
        ssize_t n = read(p[0], msg, len - 1);
        msg[n > 0 ? n : 0] = '\0';
    }
    close(p[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return e;
}

static int read_int(const char *path, long *out)
{
    char buf[32];
    _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
        return -1;
    buf[n] = '\0';
    *out = strtol(buf, NULL, 10);
    return 0;
}

static int write_str(const char *path, const char *s)
{
    _cleanup_close_ int fd = open(path, O_WRONLY | O_CLOEXEC);

    return fd < 0 ? -1 : rr_write_all(fd, s, strlen(s));
}

int check_enter_userns(char *msg, size_t len)
{
    char map[64];
    uid_t uid = getuid();
    gid_t gid = getgid();

    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
        return snprintf(msg, len, "unshare(CLONE_NEWUSER)"), errno;
    write_str("/proc/self/setgroups", "deny");
    snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
    if (write_str("/proc/self/uid_map", map) < 0)
        return snprintf(msg, len, "uid_map"), errno;
    snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
    if (write_str("/proc/self/gid_map", map) < 0)
        return snprintf(msg, len, "gid_map"), errno;
    return 0;
}

/* ---- kernel ---- */

/* A kernel feature missing: on a kernel that has it (the version says so),
 * what refuses is a filter, not the kernel; the remedy follows. */
static void kernel_feature(struct check_report *r, const char *name, bool ok, int e,
                           unsigned major, unsigned minor, const char *ok_text,
                           const char *what)
{
    char remedy[160];
    bool recent = r->facts.kernel_major > major ||
                  (r->facts.kernel_major == major && r->facts.kernel_minor >= minor);

    if (ok) {
        check_add(r, CHECK_OK, true, name, NULL, "%s", ok_text);
    } else if (recent && (e == EPERM || e == ENOSYS || e == EACCES)) {
        check_add_step(r, CHECK_FAIL, true, name,
                       r->facts.seccomp_mode == 2 ? CAUSE_SECCOMP : 0,
                       "%s: %s (this kernel has it: something in between refuses it)", what,
                       strerror(e));
    } else {
        snprintf(remedy, sizeof(remedy), "Linux %u.%u or later is needed (%s)", major, minor,
                 what);
        check_add(r, CHECK_FAIL, true, name, remedy, "%s", strerror(e));
    }
}

void check_kernel(struct check_report *r)
{
    struct utsname u;
    int fd, e;

    if (uname(&u) == 0)
        check_add(r, CHECK_INFO, false, "kernel", NULL, "%s %s", u.release, u.machine);
    fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    e = errno;
    kernel_feature(r, "pidfd", fd >= 0, e, 5, 3, "pidfd_open works", "pidfd_open");
    if (fd >= 0)
        close(fd);
    fd = rr_open_in_root(AT_FDCWD, "/", O_PATH, false);
    e = errno;
    kernel_feature(r, "openat2", fd >= 0, e, 5, 6, "openat2 RESOLVE_IN_ROOT works",
                   "openat2 RESOLVE_IN_ROOT");
    if (fd >= 0)
        close(fd);
    /* EPERM is the capability check (fsopen exists): judged by the steps */
    fd = rr_fsopen("tmpfs", FSOPEN_CLOEXEC);
    e = errno;
    kernel_feature(r, "mount API", fd >= 0 || e == EPERM, e, 5, 12,
                   "fsopen/fsmount/move_mount available", "fsopen, move_mount, mount_setattr");
    if (fd >= 0)
        close(fd);
}

/* ---- user namespaces ---- */

static int probe_userns_mount(char *msg, size_t len)
{
    int e = check_enter_userns(msg, len);
    int fd;

    if (e != 0)
        return e;
    fd = rr_fsopen("tmpfs", FSOPEN_CLOEXEC);
    if (fd < 0 || rr_fsconfig(fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
        return snprintf(msg, len, "mount a tmpfs inside it"), errno;
    return 0;
}

void check_userns(struct check_report *r)
{
    /* Only where the host has it (Ubuntu 24.04): elsewhere the cause is
     * another layer, named by check_cause_of. */
    static const char *const aa_remedy =
        "Ubuntu 24.04 restricts unprivileged user namespaces: either `sudo sysctl "
        "kernel.apparmor_restrict_unprivileged_userns=0`, or allow revrun alone with "
        "/etc/apparmor.d/revrun: `abi <abi/4.0>, include <tunables/global> profile revrun "
        "/usr/local/bin/revrun flags=(unconfined) { userns, }` then `sudo apparmor_parser -r "
        "/etc/apparmor.d/revrun`";
    char msg[512];
    long v;
    int e;

    if (read_int("/proc/sys/user/max_user_namespaces", &v) == 0 && v == 0)
        check_add(r, CHECK_FAIL, true, "user namespaces", "sudo sysctl user.max_user_namespaces=15000",
                  "user.max_user_namespaces is 0");
    if (r->rootless && read_int("/proc/sys/kernel/unprivileged_userns_clone", &v) == 0 && v == 0)
        check_add(r, CHECK_FAIL, true, "user namespaces",
                  "sudo sysctl kernel.unprivileged_userns_clone=1",
                  "kernel.unprivileged_userns_clone is 0 (unprivileged user namespaces are off)");
    if (read_int(AA_SYSCTL, &v) == 0 && v == 1)
        check_add(r, r->rootless ? CHECK_FAIL : CHECK_INFO, r->rootless, "apparmor userns",
                  r->rootless ? aa_remedy : NULL,
                  "kernel.apparmor_restrict_unprivileged_userns is 1%s",
                  r->rootless ? "" : " (root is not affected)");
    if (r->facts.in_userns)
        check_add(r, CHECK_INFO, false, "user namespace", NULL,
                  "revrun runs inside one (uid_map: %s)%s", r->facts.uid_map,
                  r->rootless ? "" : "; the container user takes mapped ids");
    e = in_child(probe_userns_mount, msg, sizeof(msg));
    if (e == 0) {
        check_add(r, CHECK_OK, true, "user namespaces", NULL, "create one and mount in it");
        return;
    }
    if (r->facts.aa_userns_sysctl && r->rootless) {
        check_add(r, CHECK_FAIL, true, "user namespaces", aa_remedy, "%s: %s", msg, strerror(e));
        return;
    }
    check_add_step(r, CHECK_FAIL, true, "user namespaces",
                   check_cause_of(r, strncmp(msg, "unshare", 7) == 0 ? STEP_USERNS : STEP_MOUNT, e),
                   "%s: %s", msg, strerror(e));
}

/* ---- overlay ---- */

static int probe_native_overlay(char *msg, size_t len)
{
    static const char *const tmpfs_opts[] = {"size=1m"};
    int e = check_enter_userns(msg, len);
    int t, root, fs;
    char opt[3][64];

    if (e != 0)
        return e;
    t = rr_make_fs("tmpfs", tmpfs_opts, 1, 0, &(struct rr_error){0});
    if (t < 0)
        return snprintf(msg, len, "tmpfs"), errno;
    root = openat(t, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 || mkdirat(root, "l", 0755) < 0 || mkdirat(root, "u", 0755) < 0 ||
        mkdirat(root, "w", 0755) < 0)
        return snprintf(msg, len, "layers"), errno;
    if (fsetxattr(root, "user.revrun-check", "1", 1, 0) < 0)
        return snprintf(msg, len, "user.* xattrs on tmpfs (Linux 6.6+) for the upper"), errno;
    fs = rr_fsopen("overlay", FSOPEN_CLOEXEC);
    if (fs < 0)
        return snprintf(msg, len, "fsopen overlay"), errno;
    snprintf(opt[0], sizeof(opt[0]), "/proc/self/fd/%d/l", root);
    snprintf(opt[1], sizeof(opt[1]), "/proc/self/fd/%d/u", root);
    snprintf(opt[2], sizeof(opt[2]), "/proc/self/fd/%d/w", root);
    if (rr_fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir", opt[0], 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", opt[1], 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_SET_STRING, "workdir", opt[2], 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_SET_STRING, "redirect_dir", "nofollow", 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_SET_FLAG, "volatile", NULL, 0) < 0 ||
        rr_fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
        return snprintf(msg, len, "mount overlayfs with userxattr in a user namespace"), errno;
    return 0;
}

void check_overlay(struct check_report *r)
{
    char msg[512];
    int e = in_child(probe_native_overlay, msg, sizeof(msg));
    bool needed = r->profile != NULL && r->profile->backend == RR_BACKEND_NATIVE;

    bool old_kernel = r->facts.kernel_major < 6 ||
                      (r->facts.kernel_major == 6 && r->facts.kernel_minor < 6);

    check_add(r, e == 0 ? CHECK_OK : (needed ? CHECK_FAIL : CHECK_WARN), needed,
              "native overlay",
              e == 0        ? NULL
              : old_kernel ? "the native backend needs Linux 5.11+ (overlay in user namespaces) "
                             "and 6.6+ (user xattrs on tmpfs); use revrun.overlay \"fuse\" or "
                             "\"auto\""
                           : "use revrun.overlay \"fuse\" or \"auto\" (this kernel is recent "
                             "enough: the steps above say what refused)",
              "%s%s%s", e == 0 ? "overlayfs with userxattr over a tmpfs upper" : msg,
              e ? ": " : "", e ? strerror(e) : "");
}

/* ---- seccomp ---- */

static int probe_seccomp(char *msg, size_t len)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int r;

    if (ctx == NULL)
        return snprintf(msg, len, "seccomp_init"), ENOMEM;
    r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(acct), 0);
    if (r == 0)
        r = seccomp_load(ctx);
    seccomp_release(ctx);
    if (r < 0)
        return snprintf(msg, len, "load a filter"), -r;
    if (acct(NULL) == 0 || errno != EPERM)
        return snprintf(msg, len, "the loaded filter did not act"), EIO;
    return 0;
}

void check_seccomp(struct check_report *r)
{
    const struct scmp_version *v = seccomp_version();
    char msg[512];
    int e = in_child(probe_seccomp, msg, sizeof(msg));

    check_add(r, e == 0 ? CHECK_OK : CHECK_FAIL, true, "seccomp",
              e == 0 ? NULL : "the kernel needs CONFIG_SECCOMP_FILTER=y",
              "%s%s%s (libseccomp %u.%u.%u, API level %u)",
              e == 0 ? "filters load and act" : msg, e ? ": " : "", e ? strerror(e) : "",
              v ? v->major : 0, v ? v->minor : 0, v ? v->micro : 0, seccomp_api_get());
}

/* ---- cgroups ---- */

/* What the memory limit leaves out: on v1, TCP socket buffers are counted
 * apart and bounded only where the kernel has memory.kmem.tcp (revrun
 * writes it); v2 charges them to memory.max. */
static void check_tcp_memory(struct check_report *r, const struct cgroup_host *h,
                             const struct profile *p)
{
    char path[PATH_MAX + 64];
    bool memory = p == NULL || p->resources.memory_limit != RR_UNSET;

    if (h->preferred != CG_V1 || !memory)
        return;
    if (h->v1_mount[0][0] == '\0')
        return; /* no memory controller: the memory line says so */
    snprintf(path, sizeof(path), "%s/%s", h->v1_mount[0], CGROUP_V1_TCP_LIMIT);
    if (access(path, F_OK) == 0)
        check_add(r, CHECK_OK, false, "tcp buffers", NULL,
                  "cgroup v1: TCP socket buffers bounded at the memory limit (%s), "
                  "counted apart from it", CGROUP_V1_TCP_LIMIT);
    else
        check_add(r, CHECK_WARN, false, "tcp buffers",
                  "a kernel with kmem accounting (not booted with cgroup.memory=nokmem), or "
                  "cgroup v2",
                  "cgroup v1 without %s: TCP socket buffers are not bounded by the memory "
                  "limit", CGROUP_V1_TCP_LIMIT);
}

void check_cgroups(struct check_report *r)
{
    struct cgroup_host h;
    struct rr_error err;
    const struct profile *p = r->profile;
    bool limits = p == NULL || p->resources.memory_limit != RR_UNSET ||
                  p->resources.pids_limit != RR_UNSET || p->resources.cpu_quota != RR_UNSET;
    char where[PATH_MAX];

    cgroup_host_probe(&h, &err);
    if (h.preferred == CG_NONE) {
        check_add(r, CHECK_FAIL, limits, "cgroups", "mount cgroup2 at /sys/fs/cgroup",
                  "no cgroup hierarchy is mounted");
        return;
    }
    check_add(r, CHECK_INFO, false, "cgroups", NULL, "%s: %s%s%s%s",
              h.preferred == CG_V2 ? "cgroup v2" : "cgroup v1 (hybrid)",
              h.preferred == CG_V2 ? h.v2_mount : "",
              h.preferred == CG_V1 && h.v1_mount[0][0] ? " memory" : "",
              h.preferred == CG_V1 && h.v1_mount[1][0] ? " pids" : "",
              h.preferred == CG_V1 && h.v1_mount[2][0] ? " cpu" : "");
    check_tcp_memory(r, &h, p);
    if (!r->rootless)
        return;
    if (h.preferred == CG_V1) {
        snprintf(where, sizeof(where), "%s/revrun-%u", h.v1_mount[0][0] ? h.v1_mount[0] : "",
                 (unsigned)getuid());
        /* what create makes there itself when the hierarchy lets it */
        bool ok = access(where, W_OK) == 0 ||
                  (errno == ENOENT && h.v1_mount[0][0] && access(h.v1_mount[0], W_OK) == 0);
        check_add(r, ok ? CHECK_OK : (limits ? CHECK_FAIL : CHECK_WARN), limits,
                  "cgroup delegation",
                  ok ? NULL
                     : "an administrator delegates: for c in memory pids cpu; do sudo mkdir -p "
                       "/sys/fs/cgroup/$c/revrun-$(id -u) && sudo chown -R $(id -u) "
                       "/sys/fs/cgroup/$c/revrun-$(id -u); done (or list the limits in "
                       "revrun.bestEffort)",
                  "%s %s", where, ok ? "is delegated to you" : "is not writable by you");
    } else {
        check_add(r, CHECK_INFO, false, "cgroup delegation",
                  "run revrun inside a delegated scope: systemd-run --user --scope -p "
                  "Delegate=yes revrun ...",
                  "unprivileged, revrun makes the container's cgroup next to its own");
    }
}
