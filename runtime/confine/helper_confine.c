#include "runtime/confine/helper_confine.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "runtime/confine/caps.h"

int helper_stdio(int log_fd, struct rr_error *err)
{
    _cleanup_close_ int null = open("/dev/null", O_RDWR | O_CLOEXEC);

    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(log_fd, 2) < 0)
        return rr_fail(err, errno, "stdio");
    return 0;
}

int helper_drop_identity(uid_t uid, gid_t gid, struct rr_error *err)
{
    if (uid != geteuid()) {
        if (setgroups(0, NULL) < 0)
            return rr_fail(err, errno, "clear supplementary groups");
        if (setresgid(gid, gid, gid) < 0)
            return rr_fail(err, errno, "gid %u", (unsigned)gid);
        /* Keep the permitted set across the uid change: dropping the
         * bounding set below needs CAP_SETPCAP once more. */
        if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setresuid(uid, uid, uid) < 0 ||
            prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
            return rr_fail(err, errno, "uid %u", (unsigned)uid);
        if (caps_raise_effective(err) < 0)
            return -1;
    }
    if (caps_drop_all(err) < 0)
        return rr_wrap(err, "drop capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        return rr_fail(err, errno, "no_new_privs");
    return 0;
}

int helper_load_seccomp(const struct sock_fprog *prog, struct rr_error *err)
{
    if (prog == NULL || prog->len == 0)
        return rr_fail(err, EINVAL, "seccomp: no filter compiled");
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) < 0)
        return rr_fail(err, errno, "seccomp");
    return 0;
}
