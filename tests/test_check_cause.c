/* runtime/check/check_cause.c: which layer a refusal is pinned on, from the
 * host's facts, and the flags printed for it. Facts are made up here; with
 * Seccomp 0 no probe runs. */
#include <errno.h>
#include <string.h>

#include "runtime/check/check.h"
#include "tests/tap.h"

#define SYS_ADMIN (1ULL << 21)
#define SETID ((1ULL << 6) | (1ULL << 7))

static struct check_report r;

static void host(uint64_t caps)
{
    memset(&r, 0, sizeof(r));
    r.facts.cap_eff = caps;
    r.facts.kernel_major = 6;
    r.facts.kernel_minor = 8;
}

TEST(no_sys_admin_is_the_capability_layer)
{
    host(SETID);
    CHECK(check_cause_of(&r, STEP_MOUNT_NS, EPERM) == CAUSE_CAPS);
    CHECK(check_cause_of(&r, STEP_MOUNT, EPERM) == CAUSE_CAPS);
    /* steps inside the container's own user namespace need none of ours */
    CHECK(check_cause_of(&r, STEP_PIVOT, EPERM) == 0);
    /* unprivileged, revrun brings its own namespace: never the caps */
    r.rootless = true;
    CHECK(check_cause_of(&r, STEP_MOUNT_NS, EPERM) == 0);
}

TEST(a_masked_proc_is_named_for_the_proc_step_only)
{
    host(SYS_ADMIN | SETID);
    r.facts.proc_masked = true;
    strcpy(r.facts.proc_mask, "/proc/kcore");
    CHECK(check_cause_of(&r, STEP_PROC, EPERM) == CAUSE_PROC_MASKED);
    CHECK(check_cause_of(&r, STEP_PIVOT, EPERM) == 0);
}

TEST(cgroup_refusals_are_the_cgroup_layer)
{
    host(SYS_ADMIN);
    CHECK(check_cause_of(&r, STEP_CGROUP, EROFS) == CAUSE_CGROUP_RO);
    CHECK(check_cause_of(&r, STEP_CGROUP, EACCES) == CAUSE_CGROUP_RO);
    CHECK(check_cause_of(&r, STEP_CGROUP, EBUSY) == CAUSE_CGROUP_RO);
    CHECK(check_cause_of(&r, STEP_CGROUP, ENOMEM) == 0);
}

TEST(no_apparmor_advice_without_apparmor)
{
    char buf[1024];

    host(SYS_ADMIN | SETID);
    CHECK(check_cause_of(&r, STEP_MOUNT, EACCES) == 0);
    r.facts.selinux = true; /* present but permissive: not named either */
    CHECK(check_cause_of(&r, STEP_MOUNT, EACCES) == 0);
    check_remedies(&r.facts, CAUSE_CAPS | CAUSE_PROC_MASKED, false, buf, sizeof(buf));
    CHECK(strstr(buf, "apparmor") == NULL);
}

TEST(an_engine_apparmor_profile_is_named_with_the_other_causes)
{
    char buf[1024];

    host(SETID);
    r.facts.apparmor = true;
    strcpy(r.facts.aa_label, "docker-default (enforce)");
    /* the mount step: both the missing capability and the profile */
    CHECK(check_cause_of(&r, STEP_MOUNT, EPERM) == (CAUSE_CAPS | CAUSE_APPARMOR));
    /* unconfined: not named */
    strcpy(r.facts.aa_label, "unconfined");
    CHECK(check_cause_of(&r, STEP_MOUNT, EPERM) == CAUSE_CAPS);
    check_remedies(&r.facts, CAUSE_APPARMOR | CAUSE_CAPS, false, buf, sizeof(buf));
    CHECK(strstr(buf, "docker run --cap-add SYS_ADMIN --security-opt apparmor=unconfined") != NULL);
    CHECK(strstr(buf, "podman run --cap-add SYS_ADMIN --security-opt apparmor=unconfined") != NULL);
    CHECK(strstr(buf, "capabilities: {add: [SYS_ADMIN]}, appArmorProfile: {type: Unconfined}") !=
          NULL);
}

TEST(selinux_enforcing_is_named_for_an_eacces)
{
    host(SYS_ADMIN | SETID);
    r.facts.selinux = true;
    r.facts.selinux_enforcing = true;
    CHECK(check_cause_of(&r, STEP_MOUNT, EACCES) == CAUSE_SELINUX);
}

TEST(not_a_refusal_is_not_pinned)
{
    host(0);
    CHECK(check_cause_of(&r, STEP_MOUNT_NS, EINVAL) == 0);
    CHECK(check_cause_of(&r, STEP_FUSE, ENOENT) == CAUSE_NO_FUSE);
    r.facts.dev_fuse = true;
    CHECK(check_cause_of(&r, STEP_FUSE, ENOENT) == 0);
}
