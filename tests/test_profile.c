/* runtime/confine/profile/: what profile_build refuses and the plan it makes
 * (namespaces, identity, the terminal, seccomp, masked paths, Landlock; the
 * mounts: test_profile_mounts.c). Each case starts from the default spec
 * (over a temporary checkout, profile_fixture.h) and changes one thing.
 * Root and rootless are judged differently: both are passed explicitly,
 * whoever runs the tests. */
#include <linux/mount.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/confine/profile/profile.h"
#include "tests/profile_fixture.h"
#include "tests/tap.h"

/* A fresh default config with explicit mappings: rootless, the spec's own;
 * as root (whose spec maps nothing) host id 3000000000, outside the range. */
static void fresh_mapped(bool rootless)
{
    fresh(rootless);
    if (rootless)
        return;
    cfg.linux.uid_mappings = calloc(1, sizeof(struct rr_id_mapping));
    cfg.linux.gid_mappings = calloc(1, sizeof(struct rr_id_mapping));
    if (cfg.linux.uid_mappings == NULL || cfg.linux.gid_mappings == NULL)
        tap_note("calloc failed");
    cfg.linux.uid_mappings[0] = (struct rr_id_mapping){PROFILE_DEFAULT_UID, 3000000000u, 1};
    cfg.linux.gid_mappings[0] = (struct rr_id_mapping){PROFILE_DEFAULT_GID, 3000000000u, 1};
    cfg.linux.n_uid_mappings = cfg.linux.n_gid_mappings = 1;
}

TEST(the_default_spec_builds_for_root_and_rootless)
{
    for (int rootless = 0; rootless < 2; rootless++) {
        fresh(rootless);
        if (!CHECK(accepted(rootless)))
            continue;
        CHECK(prof.clone_flags == (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
                                   CLONE_NEWUTS | CLONE_NEWNET));
        CHECK(!prof.net_host);
        CHECK(prof.uid == PROFILE_DEFAULT_UID && prof.gid == PROFILE_DEFAULT_GID);
        CHECK(prof.host_uid == (rootless ? getuid() : PROFILE_DEFAULT_HOST_ID));
        CHECK(prof.host_gid == (rootless ? getgid() : PROFILE_DEFAULT_HOST_ID));
        CHECK(prof.idmap_lower == !rootless);
        CHECK(strcmp(prof.lower, lower) == 0 && strcmp(prof.checkout_path, "/workspace") == 0);
        CHECK(prof.n_mounts == cfg.n_mounts);
        /* Every mount of the default spec is nosuid and nodev; binds are
         * read-only. */
        for (size_t i = 0; i < prof.n_mounts; i++) {
            CHECK((prof.mounts[i].attr & (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)) ==
                  (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV));
            if (prof.mounts[i].kind == MOUNT_BIND)
                CHECK(prof.mounts[i].attr & MOUNT_ATTR_RDONLY);
        }
        CHECK(prof.mounts[1].is_dev && strcmp(prof.mounts[1].destination, "/dev") == 0);
    }
}

TEST(every_namespace_but_network_is_mandatory)
{
    static const struct {
        unsigned bit;
        const char *name;
    } ns[] = {{RR_NS_USER, "user"}, {RR_NS_MOUNT, "mount"}, {RR_NS_PID, "pid"},
              {RR_NS_IPC, "ipc"},   {RR_NS_UTS, "uts"},     {RR_NS_CGROUP, "cgroup"}};

    for (int rootless = 0; rootless < 2; rootless++)
        for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
            char want[128];
            fresh(rootless);
            cfg.linux.namespaces &= ~ns[i].bit;
            snprintf(want, sizeof(want), "linux.namespaces: revrun always isolates \"%s\"",
                     ns[i].name);
            CHECK(refused(rootless, want));
        }
}

TEST(the_network_namespace_goes_only_with_network_host)
{
    fresh(false);
    cfg.linux.namespaces &= ~RR_NS_NET;
    CHECK(refused(false, "linux.namespaces: \"network\" is missing"));
    cfg.revrun.network = RR_NET_HOST;
    CHECK(accepted(false) && prof.net_host && !(prof.clone_flags & CLONE_NEWNET));
    cfg.linux.namespaces |= RR_NS_NET;
    CHECK(refused(false, "revrun.network is \"host\" but linux.namespaces lists \"network\""));
}

TEST(no_new_privileges_cannot_be_turned_off)
{
    fresh(false);
    cfg.process.no_new_privileges = false;
    CHECK(refused(false, "process.noNewPrivileges: revrun always sets it"));
    /* Absent is fine: revrun sets it anyway. */
    cfg.process.has_no_new_privileges = false;
    CHECK(accepted(false));
}

static const struct mount_plan *plan_at(const char *dest)
{
    for (size_t i = 0; i < prof.n_mounts; i++)
        if (strcmp(prof.mounts[i].destination, dest) == 0)
            return &prof.mounts[i];
    return NULL;
}

TEST(a_terminal_gets_a_devpts_instance_that_keeps_its_devices)
{
    const struct mount_plan *pts;

    fresh(false);
    CHECK(accepted(false) && !prof.terminal && plan_at("/dev/pts") == NULL);
    cfg.process.terminal = true;
    CHECK(accepted(false) && prof.terminal);
    pts = plan_at("/dev/pts");
    CHECK(pts != NULL && pts->kind == MOUNT_DEVPTS);
    CHECK(pts != NULL && !(pts->attr & MOUNT_ATTR_NODEV) && (pts->attr & MOUNT_ATTR_NOSUID));
    CHECK(pts != NULL && strv_contains(&pts->fs_options, "newinstance"));
}

TEST(a_terminal_without_a_dev_tmpfs_is_refused)
{
    fresh(false);
    cfg.process.terminal = true;
    for (size_t i = 0; i < cfg.n_mounts; i++)
        if (strcmp(cfg.mounts[i].destination, "/dev") == 0) {
            free(cfg.mounts[i].destination);
            cfg.mounts[i].destination = strdup("/elsewhere");
        }
    CHECK(refused(false, "process.terminal: needs a tmpfs mounted at /dev"));
}

TEST(identity_mapping_rules)
{
    for (int rootless = 0; rootless < 2; rootless++) {
        fresh_mapped(rootless);
        cfg.linux.uid_mappings[0].container_id = 0;
        CHECK(refused(rootless, "linux.uidMappings: exactly one mapping of size 1 for the "
                                "process's uid (1000)"));
        fresh_mapped(rootless);
        cfg.process.uid = 1001;
        CHECK(refused(rootless, "linux.uidMappings: exactly one mapping of size 1"));
        fresh_mapped(rootless);
        cfg.linux.uid_mappings[0].size = 2;
        CHECK(refused(rootless, "linux.uidMappings: exactly one mapping of size 1"));
        fresh_mapped(rootless);
        cfg.linux.gid_mappings[0].container_id = 0;
        CHECK(refused(rootless, "linux.gidMappings: exactly one mapping of size 1 for the "
                                "process's gid (1000)"));
        fresh_mapped(rootless);
        cfg.linux.gid_mappings[0].size = 65536;
        CHECK(refused(rootless, "linux.gidMappings: exactly one mapping"));
        /* Two mappings, even of size 1. */
        fresh_mapped(rootless);
        cfg.linux.uid_mappings = realloc(cfg.linux.uid_mappings, 2 * sizeof(struct rr_id_mapping));
        cfg.linux.uid_mappings[1] = (struct rr_id_mapping){0, 3000000000u, 1};
        cfg.linux.n_uid_mappings = 2;
        CHECK(refused(rootless, "linux.uidMappings: exactly one mapping"));
        /* None: revrun's own choice. */
        fresh_mapped(rootless);
        cfg.linux.n_uid_mappings = 0;
        cfg.linux.n_gid_mappings = 0;
        CHECK(accepted(rootless) &&
              prof.host_uid == (rootless ? getuid() : PROFILE_DEFAULT_HOST_ID) &&
              prof.host_gid == (rootless ? getgid() : PROFILE_DEFAULT_HOST_ID));
    }
}

TEST(root_mode_never_maps_host_root)
{
    fresh_mapped(false);
    cfg.linux.uid_mappings[0].host_id = 0;
    CHECK(refused(false, "linux.uidMappings: the container user must not be host root"));
    fresh_mapped(false);
    cfg.linux.gid_mappings[0].host_id = 0;
    CHECK(refused(false, "linux.gidMappings: the container user must not be host root"));
    fresh_mapped(false);
    cfg.linux.uid_mappings[0].host_id = 12345;
    CHECK(accepted(false) && prof.host_uid == 12345);
}

TEST(rootless_maps_only_the_callers_own_ids)
{
    fresh_mapped(true);
    cfg.linux.uid_mappings[0].host_id = getuid() + 1;
    CHECK(refused(true, "linux.uidMappings: running without root, the host id must be your own"));
    fresh_mapped(true);
    cfg.linux.gid_mappings[0].host_id = getgid() + 1;
    CHECK(refused(true, "linux.gidMappings: running without root, the host id must be your own"));
}

TEST(as_root_each_container_gets_a_host_id_of_its_own)
{
    /* No mapping: create takes a free id of the range. */
    fresh(false);
    CHECK(cfg.linux.n_uid_mappings == 0 && cfg.linux.n_gid_mappings == 0);
    CHECK(accepted(false) && prof.host_ids == HOST_IDS_ANY &&
          prof.host_range.first == POLICY_HOST_IDS_FIRST &&
          prof.host_range.count == POLICY_HOST_IDS_COUNT);
    /* A mapping into the range claims exactly that id. */
    fresh_mapped(false);
    cfg.linux.uid_mappings[0].host_id = cfg.linux.gid_mappings[0].host_id = 2000000007u;
    CHECK(accepted(false) && prof.host_ids == HOST_IDS_EXACT && prof.host_uid == 2000000007u);
    /* ... where a container's gid is its uid. */
    cfg.linux.gid_mappings[0].host_id = 2000000008u;
    CHECK(refused(false, "linux.gidMappings: inside revrun's host id range 2000000000-2000065535"));
    /* Outside the range: the operator's own choice, nothing to take. */
    fresh_mapped(false);
    CHECK(accepted(false) && prof.host_ids == HOST_IDS_FIXED && prof.host_uid == 3000000000u);
    /* Rootless: the caller's ids, always. */
    fresh(true);
    CHECK(accepted(true) && prof.host_ids == HOST_IDS_FIXED && prof.host_uid == getuid());
}

static const struct syscall_rule *rule_of(const char *name)
{
    for (size_t i = 0; i < prof.n_syscall_rules; i++)
        if (strcmp(prof.syscall_rules[i].name, name) == 0)
            return &prof.syscall_rules[i];
    return NULL;
}

static bool has_rule(const char *name)
{
    return rule_of(name) != NULL;
}

TEST(seccomp_floor_follows_the_switches)
{
    fresh(false);
    CHECK(accepted(false) && has_rule("ptrace") && has_rule("mount") && has_rule("bpf") &&
          has_rule("clone3"));
    cfg.revrun.ptrace = true;
    CHECK(accepted(false) && !has_rule("ptrace") && has_rule("mount"));
    cfg.revrun.nested_sandboxes = true;
    CHECK(accepted(false) && !has_rule("mount") && !has_rule("clone3") && has_rule("bpf") &&
          has_rule("keyctl"));
}

TEST(the_floor_denies_the_issue_list_with_eperm_and_clone3_with_enosys)
{
    static const char *const denied[] = {
        "mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
        "fsmount", "fspick", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
        "userfaultfd", "kexec_load", "kexec_file_load", "init_module", "finit_module",
        "delete_module", "open_by_handle_at", "setns", "acct", "swapon", "swapoff", "reboot",
        "syslog", "settimeofday", "clock_settime", "iopl", "ioperm", "quotactl", "personality",
        "ptrace", "ioctl", "unshare", "clone"};

    fresh(false);
    CHECK(accepted(false));
    for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
        const struct syscall_rule *r = rule_of(denied[i]);
        if (!CHECK(r != NULL && r->errnum == EPERM))
            tap_note("not denied with EPERM: %s", denied[i]);
    }
    CHECK(rule_of("clone3") != NULL && rule_of("clone3")->errnum == ENOSYS);
}

TEST(proc_is_masked_except_in_the_nested_profile)
{
    fresh(false);
    CHECK(accepted(false) && strv_contains(prof.masked_paths, "/proc/kcore") &&
          strv_contains(prof.readonly_paths, "/proc/sys"));
    cfg.revrun.nested_sandboxes = true;
    CHECK(accepted(false));
    for (size_t i = 0; i < prof.masked_paths->n; i++)
        CHECK(strncmp(prof.masked_paths->v[i], "/proc/", 6) != 0);
    CHECK(strv_contains(prof.masked_paths, "/sys/firmware"));
    CHECK(prof.readonly_paths->n == 0);
}

static int landlock_access_of(const char *path)
{
    for (size_t i = 0; i < prof.n_landlock_rules; i++)
        if (strcmp(prof.landlock_rules[i].path, path) == 0)
            return (int)prof.landlock_rules[i].access;
    return -1;
}

TEST(landlock_writes_only_the_overlay_tmpfs_and_rw_binds)
{
    static const char *const rw[] = {"bind", "rw", NULL};
    static const char *const ro[] = {"bind", "ro", NULL};

    fresh(false);
    add_mount("/out", "bind", hostdir(), rw);
    add_mount("/ro", "bind", "/usr", ro);
    CHECK(accepted(false));
    CHECK(prof.landlock == LANDLOCK_BEST_EFFORT); /* the default spec's choice */
    CHECK(landlock_access_of("/") == LANDLOCK_READ);
    CHECK(landlock_access_of("/workspace") == LANDLOCK_WRITE);
    CHECK(landlock_access_of("/tmp") == LANDLOCK_WRITE);
    CHECK(landlock_access_of("/home/agent") == LANDLOCK_WRITE);
    CHECK(landlock_access_of("/dev/shm") == LANDLOCK_WRITE);
    CHECK(landlock_access_of("/out") == LANDLOCK_WRITE);
    CHECK(landlock_access_of("/dev") == LANDLOCK_DEVICES);
    CHECK(landlock_access_of("/ro") == -1 && landlock_access_of("/usr") == -1);
    CHECK(landlock_access_of("/proc") == -1);
    CHECK(prof.landlock_stdio);
    cfg.process.terminal = true;
    CHECK(accepted(false) && !prof.landlock_stdio &&
          landlock_access_of("/dev/pts") == LANDLOCK_DEVICES);
}

TEST(landlock_is_required_unless_best_effort_and_off_when_nested)
{
    fresh(false);
    strv_free(&cfg.revrun.best_effort);
    CHECK(accepted(false) && prof.landlock == LANDLOCK_REQUIRED);
    /* a Landlock-restricted process can never mount */
    cfg.revrun.nested_sandboxes = true;
    CHECK(accepted(false) && prof.landlock == LANDLOCK_OFF && prof.n_landlock_rules == 0);
}

TEST(cleanup)
{
    if (built)
        profile_free(&prof);
    built = false;
    config_free(&cfg);
    CHECK(rmdir(lower) == 0);
}
