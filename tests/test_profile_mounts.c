/* runtime/confine/profile/ mounts.c: what a review's mounts may be and the
 * plan each becomes, binds most of all, and the checkout under them. Each
 * case starts from the default spec (profile_fixture.h) and changes one
 * thing; root and rootless both judged. The rest of the profile:
 * test_profile.c. */
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

/* The plan of the mount added last, or NULL when the build failed. */
static const struct mount_plan *plan_of(size_t i, bool rootless)
{
    if (build(rootless) < 0) {
        tap_note("refused: %s", err.msg);
        return NULL;
    }
    return &prof.mounts[i];
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

/* Not a test of its own (test_profile.c's cleanup is the one counted): the
 * temporary checkout goes when the binary ends, whatever failed. */
__attribute__((destructor)) static void cleanup_mounts(void)
{
    if (built)
        profile_free(&prof);
    built = false;
    config_free(&cfg);
    if (rmdir(lower) != 0)
        tap_note("cleanup: rmdir %s failed", lower);
}
