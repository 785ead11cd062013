#include "runtime/container/passfds.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/confine/profile/profile.h"
#include "runtime/container/log.h"

int passfds_check(int n, struct rr_error *err)
{
    if (n < 0 || n > PASSFDS_MAX)
        return rr_fail(err, EINVAL, "--preserve-fds: 0 to %d", PASSFDS_MAX);
    for (int fd = 3; fd < 3 + n; fd++) {
        if (fcntl(fd, F_GETFD) < 0 || fd == log_fileno())
            return rr_fail(err, EBADF, "--preserve-fds %d: fd %d is not one the caller passed",
                           n, fd);
        if (profile_judge_passed_fd(fd, err) < 0)
            return rr_wrap(err, "--preserve-fds %d", n);
    }
    return 0;
}

int passfds_seal(int n)
{
    if (syscall(SYS_close_range, 3 + n, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
        return -1;
    for (int fd = 3; fd < 3 + n; fd++) {
        int fl = fcntl(fd, F_GETFD);
        if (fl < 0 || fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC) < 0)
            return -1;
    }
    return 0;
}
