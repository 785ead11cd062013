/* The confinement profile's decisions (runtime/profile.c), judged on the
 * plan it builds from the default spec: no root, nothing mounted. */
#include <errno.h>
#include <linux/mount.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/profile.h"
#include "tests/tap.h"

static struct rr_config cfg;
static struct profile prof;
static struct rr_error err;

/* The default spec around "/" as the checkout, edited by the caller, then
 * judged. */
static void spec(void)
{
    config_free(&cfg);
    memset(&cfg, 0, sizeof(cfg));
    if (profile_default_config(&cfg, "/", false, &err) < 0)
        abort();
}

static int build(void)
{
    profile_free(&prof);
    return profile_build(&cfg, false, &prof, &err);
}

static const struct syscall_rule *rule(const char *name)
{
    for (size_t i = 0; i < prof.n_syscall_rules; i++)
        if (strcmp(prof.syscall_rules[i].name, name) == 0)
            return &prof.syscall_rules[i];
    return NULL;
}

static int landlock_access(const char *path)
{
    for (size_t i = 0; i < prof.n_landlock_rules; i++)
        if (strcmp(prof.landlock_rules[i].path, path) == 0)
            return (int)prof.landlock_rules[i].access;
    return -1;
}

static const struct mount_plan *plan(const char *dest)
{
    for (size_t i = 0; i < prof.n_mounts; i++)
        if (strcmp(prof.mounts[i].destination, dest) == 0)
            return &prof.mounts[i];
    return NULL;
}

static void add_bind(const char *dest, const char *opt)
{
    struct rr_mount *m = realloc(cfg.mounts, (cfg.n_mounts + 1) * sizeof(*m));

    if (m == NULL)
        abort();
    cfg.mounts = m;
    m = &cfg.mounts[cfg.n_mounts++];
    *m = (struct rr_mount){.destination = strdup(dest), .type = strdup("bind"),
                           .source = strdup("/")};
    strv_push(&m->options, "bind");
    strv_push(&m->options, opt);
}

TEST(default_profile_denies_the_issue_list_with_eperm)
{
    static const char *const denied[] = {
        "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
        "fsmount", "fspick", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
        "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module",
        "delete_module", "open_by_handle_at", "setns", "acct", "swapon", "swapoff", "reboot",
        "syslog", "settimeofday", "clock_settime", "iopl", "ioperm", "quotactl", "personality",
        "ptrace", "ioctl", "unshare", "clone"};

    spec();
    CHECK(build() == 0);
    for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
        const struct syscall_rule *r = rule(denied[i]);
        if (!CHECK(r != NULL && r->errnum == EPERM))
            tap_note("not denied with EPERM: %s", denied[i]);
    }
    CHECK(rule("clone3") != NULL && rule("clone3")->errnum == ENOSYS);
}

TEST(nested_profile_allows_namespaces_and_leaves_proc_unmasked)
{
    spec();
    cfg.revrun.nested_sandboxes = true;
    CHECK(build() == 0);
    CHECK(rule("mount") == NULL && rule("unshare") == NULL && rule("clone3") == NULL);
    CHECK(rule("setns") != NULL && rule("keyctl") != NULL);
    for (size_t i = 0; i < prof.masked_paths->n; i++)
        CHECK(strncmp(prof.masked_paths->v[i], "/proc/", 6) != 0);
    CHECK(strv_contains(prof.masked_paths, "/sys/firmware"));
    CHECK(prof.readonly_paths->n == 0);
    /* a Landlock-restricted process can never mount */
    CHECK(prof.landlock == LANDLOCK_OFF && prof.n_landlock_rules == 0);
}

TEST(default_profile_masks_proc)
{
    spec();
    CHECK(build() == 0);
    CHECK(strv_contains(prof.masked_paths, "/proc/kcore"));
    CHECK(strv_contains(prof.readonly_paths, "/proc/sys"));
}

TEST(landlock_writes_only_the_overlay_tmpfs_and_rw_binds)
{
    spec();
    add_bind("/out", "rw");
    add_bind("/ro", "ro");
    CHECK(build() == 0);
    CHECK(prof.landlock == LANDLOCK_BEST_EFFORT); /* the default spec's choice */
    CHECK(landlock_access("/") == LANDLOCK_READ);
    CHECK(landlock_access("/workspace") == LANDLOCK_WRITE);
    CHECK(landlock_access("/tmp") == LANDLOCK_WRITE);
    CHECK(landlock_access("/home/agent") == LANDLOCK_WRITE);
    CHECK(landlock_access("/dev/shm") == LANDLOCK_WRITE);
    CHECK(landlock_access("/out") == LANDLOCK_WRITE);
    CHECK(landlock_access("/dev") == LANDLOCK_DEVICES);
    CHECK(landlock_access("/ro") == -1 && landlock_access("/usr") == -1);
    CHECK(landlock_access("/proc") == -1);
    CHECK(prof.landlock_stdio);
}

TEST(landlock_is_required_unless_best_effort)
{
    spec();
    strv_free(&cfg.revrun.best_effort);
    CHECK(build() == 0);
    CHECK(prof.landlock == LANDLOCK_REQUIRED);
}

TEST(terminal_adds_a_devpts_instance_that_keeps_its_devices)
{
    const struct mount_plan *pts;

    spec();
    CHECK(build() == 0);
    CHECK(!prof.terminal && plan("/dev/pts") == NULL);
    cfg.process.terminal = true;
    CHECK(build() == 0);
    pts = plan("/dev/pts");
    CHECK(prof.terminal && pts != NULL && pts->kind == MOUNT_DEVPTS);
    CHECK(pts != NULL && !(pts->attr & MOUNT_ATTR_NODEV) && (pts->attr & MOUNT_ATTR_NOSUID));
    CHECK(pts != NULL && strv_contains(&pts->fs_options, "newinstance"));
    CHECK(!prof.landlock_stdio);
    CHECK(landlock_access("/dev/pts") == LANDLOCK_DEVICES);
}

TEST(terminal_without_a_dev_tmpfs_is_refused)
{
    spec();
    cfg.process.terminal = true;
    for (size_t i = 0; i < cfg.n_mounts; i++)
        if (strcmp(cfg.mounts[i].destination, "/dev") == 0) {
            free(cfg.mounts[i].destination);
            cfg.mounts[i].destination = strdup("/elsewhere");
        }
    CHECK(build() < 0);
    CHECK(strstr(err.msg, "process.terminal") != NULL);
}
