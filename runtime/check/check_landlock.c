/* `revrun check`: Landlock, the second filesystem layer. */
#include "runtime/check/check.h"
#include "runtime/confine/landlock.h"

void check_landlock(struct check_report *r)
{
    static const char *const remedy =
        "Landlock needs Linux 5.13+ built with CONFIG_SECURITY_LANDLOCK=y and \"landlock\" in "
        "the lsm= boot parameter (see /sys/kernel/security/lsm); or list \"landlock\" in "
        "revrun.bestEffort to run without it";
    static const char *const features[] = {"",
                                           "filesystem rules",
                                           "+ rename across directories",
                                           "+ truncate",
                                           "+ TCP ports",
                                           "+ ioctl on devices",
                                           "+ abstract unix socket scoping"};
    const struct profile *p = r->profile;
    int abi = landlock_abi();

    if (p != NULL && p->landlock == LANDLOCK_OFF) {
        check_add(r, CHECK_INFO, false, "landlock", NULL,
                  "ABI %d on this kernel; not used: revrun.nestedSandboxes (a process under "
                  "Landlock cannot mount)",
                  abi);
        return;
    }
    if (abi > 0) {
        check_add(r, CHECK_OK, false, "landlock", NULL, "ABI %d (%s%s)", abi,
                  features[abi < 6 ? abi : 6], abi > 6 ? ", and newer" : "");
        return;
    }
    /* Without a bundle, the default spec: best-effort. */
    bool required = p != NULL && p->landlock == LANDLOCK_REQUIRED;
    check_add(r, required ? CHECK_FAIL : CHECK_WARN, required, "landlock", remedy,
              "this kernel has no Landlock%s",
              required ? " and the config requires it" : ": the agent runs without that layer");
}
