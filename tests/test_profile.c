/* runtime/confine/profile/: what profile_build refuses and the plan it makes. Each
 * case starts from the default spec (over a temporary checkout) and changes
 * one thing. Root and rootless are judged differently: both are passed
 * explicitly, whoever runs the tests. */
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
#include "tests/tap.h"

static char lower[] = "/tmp/revrun-test-profile.XXXXXX";
static struct rr_config cfg;
static struct profile prof;
static struct rr_error err;
static bool built;

/* A fresh default config; rootless picks the identity the spec writes. */
/* A host directory of no importance, for binds (read-write ones of system
 * trees or of the checkout are refused). */
static const char *hostdir(void)
{
    static char dir[] = "/tmp/revrun-test-host.XXXXXX";

    if (dir[sizeof(dir) - 2] == 'X' && mkdtemp(dir) == NULL)
        tap_note("mkdtemp failed");
    return dir;
}

static void fresh(bool rootless)
{
    if (built)
        profile_free(&prof);
    built = false;
    config_free(&cfg);
    if (lower[sizeof(lower) - 2] == 'X' && mkdtemp(lower) == NULL)
        tap_note("mkdtemp failed");
    if (profile_default_config(&cfg, lower, rootless, &err) < 0)
        tap_note("default config: %s", err.msg);
}

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

static int build(bool rootless)
{
    if (built)
        profile_free(&prof);
    err = (struct rr_error){0};
    built = profile_build(&cfg, rootless, &prof, &err) == 0;
    return built ? 0 : -1;
}

static bool refused(bool rootless, const char *want)
{
    if (build(rootless) == 0) {
        tap_note("accepted (wanted \"%s\")", want);
        return false;
    }
    if (strstr(err.msg, want) == NULL) {
        tap_note("message \"%s\" lacks \"%s\"", err.msg, want);
        return false;
    }
    return true;
}

static bool accepted(bool rootless)
{
    if (build(rootless) < 0) {
        tap_note("refused: %s", err.msg);
        return false;
    }
    return true;
}

/* Append a mount; opts is NULL-terminated. Returns its index. */
static size_t add_mount(const char *dest, const char *type, const char *src,
                        const char *const *opts)
{
    struct rr_mount *m = realloc(cfg.mounts, (cfg.n_mounts + 1) * sizeof(*m));

    if (m == NULL)
        abort();
    cfg.mounts = m;
    m = &cfg.mounts[cfg.n_mounts];
    *m = (struct rr_mount){
        .destination = strdup(dest), .type = strdup(type), .source = src ? strdup(src) : NULL};
    for (; opts != NULL && *opts != NULL; opts++)
        strv_push(&m->options, *opts);
    return cfg.n_mounts++;
}

/* The plan of the mount added last, or NULL when the build failed. */
static const struct mount_plan *plan_of(size_t i, bool rootless)
{
    if (build(rootless) < 0) {
        tap_note("refused: %s", err.msg);
        return NULL;
    }
    return &prof.mounts[i];
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

TEST(mount_types_outside_the_list_are_refused)
{
    static const char *const types[] = {"sysfs", "overlay", "ext4", "cgroup2", "rbind", "Bind", ""};

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char want[96];
        fresh(false);
        size_t at = add_mount("/mnt", types[i], "/usr", NULL);
        snprintf(want, sizeof(want), "mounts[%zu].type: \"%s\" is not supported", at, types[i]);
        CHECK(refused(false, want));
    }
    fresh(false);
    add_mount("/mnt", "mqueue", "mqueue", NULL);
    CHECK(accepted(false));
}

TEST(suid_and_dev_are_refused)
{
    static const char *const suid[] = {"suid", NULL};
    static const char *const dev[] = {"nosuid", "dev", NULL};

    fresh(false);
    add_mount("/mnt", "tmpfs", "tmpfs", suid);
    CHECK(refused(false, ".options: suid and dev are not allowed"));
    fresh(false);
    add_mount("/mnt", "bind", "/usr", dev);
    CHECK(refused(false, ".options: suid and dev are not allowed"));
}

TEST(shared_propagation_move_and_remount_are_refused)
{
    static const char *const opts[] = {"shared", "rshared", "remount", "mand", "silent"};

    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        const char *o[] = {"ro", opts[i], NULL};
        fresh(false);
        size_t at = add_mount("/mnt", "bind", "/usr", o);
        char want[96];
        snprintf(want, sizeof(want), "mounts[%zu].options: shared propagation", at);
        if (!CHECK(refused(false, want)))
            tap_note("option %s", opts[i]);
    }
    /* private and slave propagation are fine. */
    fresh(false);
    const char *ok[] = {"rprivate", "rslave", NULL};
    add_mount("/mnt", "bind", "/usr", ok);
    CHECK(accepted(false));
}

TEST(options_with_commas_quotes_or_control_bytes_are_refused)
{
    static const char *const bad[] = {"size=1m,mode=777", "ro\n", "a\"b", "\x1b[0m", "mode=7\t"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *o[] = {"nosuid", bad[i], NULL};
        char want[96];
        fresh(false);
        size_t at = add_mount("/mnt", "tmpfs", "tmpfs", o);
        snprintf(want, sizeof(want), "mounts[%zu].options[1]: invalid character", at);
        CHECK(refused(false, want));
    }
}

TEST(filesystem_options_must_suit_the_type)
{
    static const struct {
        const char *type, *src, *opt;
        bool ok;
    } cases[] = {
        {"tmpfs", "tmpfs", "size=1m", true},       {"tmpfs", "tmpfs", "nr_inodes=10", true},
        {"tmpfs", "tmpfs", "uid=1000", true},      {"tmpfs", "tmpfs", "huge=always", false},
        {"tmpfs", "tmpfs", "sizex=1", false},      {"tmpfs", "tmpfs", "siz=1", false},
        {"devpts", "devpts", "newinstance", true}, {"devpts", "devpts", "ptmxmode=0666", true},
        {"devpts", "devpts", "size=1m", false},    {"mqueue", "mqueue", "size=1", false},
        {"bind", "/usr", "size=1m", false},        {"bind", "/usr", "mode=755", false},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *o[] = {cases[i].opt, NULL};
        fresh(false);
        add_mount("/mnt", cases[i].type, cases[i].src, o);
        if (cases[i].ok)
            CHECK(accepted(false));
        else if (!CHECK(refused(false, ".options: \"")))
            tap_note("%s with %s", cases[i].type, cases[i].opt);
    }
    /* proc takes hidepid and subset, only at /proc. */
    fresh(false);
    strv_push(&cfg.mounts[0].options, "hidepid=2");
    CHECK(accepted(false));
    strv_push(&cfg.mounts[0].options, "size=1");
    CHECK(refused(false, "mounts[0].options: \"size=1\" is not supported for this mount type"));
    fresh(false);
    const char *bind[] = {"size=1m", NULL};
    size_t at = add_mount("/mnt", "bind", "/usr", bind);
    char want[96];
    snprintf(want, sizeof(want), "mounts[%zu].options: \"size=1m\" does not apply to a bind mount",
             at);
    CHECK(refused(false, want));
}

TEST(no_mount_over_the_root_or_the_checkout)
{
    static const char *const bad[] = {"/", "/workspace", "/workspace/", "/workspace/.git",
                                      "/workspace/a/b"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fresh(false);
        size_t at = add_mount(bad[i], "tmpfs", "tmpfs", NULL);
        char want[96];
        snprintf(want, sizeof(want),
                 "mounts[%zu].destination: would cover the root or the "
                 "checkout at /workspace",
                 at);
        CHECK(refused(false, want));
    }
    /* A sibling sharing the prefix is not inside. */
    fresh(false);
    add_mount("/workspace2", "tmpfs", "tmpfs", NULL);
    CHECK(accepted(false));
    /* The rule follows revrun.checkoutPath, however it is spelled. */
    fresh(false);
    free(cfg.revrun.checkout_path);
    cfg.revrun.checkout_path = strdup("/src/");
    add_mount("/src/x", "tmpfs", "tmpfs", NULL);
    CHECK(refused(false, "would cover the root or the checkout at /src/"));
}

TEST(proc_only_at_proc)
{
    fresh(false);
    size_t at = add_mount("/mnt/proc", "proc", "proc", NULL);
    char want[64];
    snprintf(want, sizeof(want), "mounts[%zu]: proc may only be mounted at /proc", at);
    CHECK(refused(false, want));
}

TEST(bind_mounts_are_read_only_unless_rw_and_always_nosuid_nodev)
{
    static const char *const plain[] = {"bind", NULL};
    static const char *const rbind[] = {"rbind", NULL};
    static const char *const rw[] = {"rbind", "rw", NULL};
    static const char *const ro_rw[] = {"ro", "rw", NULL};
    static const char *const rw_ro[] = {"rw", "ro", NULL};
    static const char *const flags[] = {"bind", "noexec", "noatime", "nodiratime", NULL};
    const struct mount_plan *mp;
    const uint64_t base = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    size_t at;

    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), NULL);
    mp = plan_of(at, false);
    CHECK(mp && mp->kind == MOUNT_BIND && mp->attr == (base | MOUNT_ATTR_RDONLY) && !mp->recursive);
    CHECK(mp && strcmp(mp->source, hostdir()) == 0 && strcmp(mp->destination, "/mnt") == 0);
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), plain);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (base | MOUNT_ATTR_RDONLY) && !mp->recursive);
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), rbind);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (base | MOUNT_ATTR_RDONLY) && mp->recursive);
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), rw);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == base && mp->recursive);
    /* The last of "ro" and "rw" wins, as with mount(8). */
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), rw_ro);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (base | MOUNT_ATTR_RDONLY));
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), ro_rw);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == base);
    fresh(false);
    at = add_mount("/mnt", "bind", hostdir(), flags);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (base | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC | MOUNT_ATTR_NOATIME |
                             MOUNT_ATTR_NODIRATIME));
}

TEST(other_mounts_get_nosuid_nodev_and_their_fs_options)
{
    static const char *const tmp[] = {"size=1m", "mode=1777", "strictatime", NULL};
    static const char *const ro[] = {"ro", NULL};
    const struct mount_plan *mp;
    size_t at;

    fresh(false);
    at = add_mount("/scratch", "tmpfs", "tmpfs", tmp);
    mp = plan_of(at, false);
    CHECK(mp && mp->kind == MOUNT_TMPFS && !mp->is_dev &&
          mp->attr == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_STRICTATIME));
    CHECK(mp && mp->fs_options.n == 2 && strcmp(mp->fs_options.v[0], "size=1m") == 0 &&
          strcmp(mp->fs_options.v[1], "mode=1777") == 0);
    fresh(false);
    at = add_mount("/scratch", "tmpfs", "tmpfs", NULL);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV) && mp->fs_options.n == 0);
    fresh(false);
    at = add_mount("/scratch", "tmpfs", "tmpfs", ro);
    mp = plan_of(at, false);
    CHECK(mp && mp->attr == (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_RDONLY));
}

TEST(the_checkout_must_be_a_directory_and_not_the_root)
{
    char file[64];
    int fd;

    fresh(false);
    free(cfg.revrun.checkout_path);
    cfg.revrun.checkout_path = strdup("/");
    CHECK(refused(false, "revrun.checkoutPath: the checkout cannot be the root"));
    fresh(false);
    free(cfg.revrun.lower);
    cfg.revrun.lower = strdup("/nonexistent/revrun-test");
    CHECK(refused(false, "revrun.lower: /nonexistent/revrun-test") && err.errnum == ENOENT);
    snprintf(file, sizeof(file), "%s/file", lower);
    fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    close(fd);
    fresh(false);
    free(cfg.revrun.lower);
    cfg.revrun.lower = strdup(file);
    CHECK(refused(false, "revrun.lower") && err.errnum == ENOTDIR);
    unlink(file);
}

TEST(the_lower_owner_and_mode_are_recorded)
{
    struct stat st;

    fresh(false);
    CHECK(stat(lower, &st) == 0);
    CHECK(accepted(false) && prof.lower_owner == st.st_uid && prof.lower_group == st.st_gid &&
          prof.lower_mode == (st.st_mode & 0777));
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

TEST(binds_stay_off_proc_sys_dev_and_rw_ones_off_the_checkout_and_system_trees)
{
    static const char *const rw[] = {"rbind", "rw", NULL};
    static const char *const ro[] = {"rbind", "ro", NULL};
    char parent[4096];

    fresh(false);
    snprintf(parent, sizeof(parent), "%s", lower);
    *strrchr(parent, '/') = '\0';
    add_mount("/proc/x", "bind", hostdir(), ro);
    CHECK(refused(false, "a bind over /proc is refused"));
    fresh(false);
    add_mount("/dev/x", "bind", hostdir(), ro);
    CHECK(refused(false, "a bind over /dev is refused"));
    fresh(false);
    add_mount("/sys", "bind", hostdir(), ro);
    CHECK(refused(false, "a bind over /sys is refused"));
    fresh(false);
    add_mount("/data", "bind", lower, rw);
    CHECK(refused(false, "would reach the checkout"));
    fresh(false);
    add_mount("/data", "bind", parent, rw);
    CHECK(refused(false, "would reach the checkout"));
    fresh(false);
    add_mount("/data", "bind", "/usr/lib", rw);
    CHECK(refused(false, "may only be bound read-only"));
    fresh(false);
    add_mount("/data", "bind", "/usr/lib", ro);
    add_mount("/co", "bind", lower, ro);
    CHECK(accepted(false));
    fresh(false);
    add_mount("/data", "bind", hostdir(), rw);
    CHECK(accepted(false));
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
