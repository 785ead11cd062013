#include "runtime/container_upper.h"

#include <errno.h>
#include <unistd.h>

int container_open_upper(const struct cli_ctx *ctx, const char *id, struct container_upper *out,
                         struct rr_error *err)
{
    (void)ctx;
    out->lower_fd = out->upper_fd = -1;
    return rr_fail(err, ENOSYS, "container %s: write-back from a live bundle is not wired yet", id);
}

void container_upper_release(struct container_upper *cu)
{
    if (cu->lower_fd >= 0)
        close(cu->lower_fd);
    if (cu->upper_fd >= 0)
        close(cu->upper_fd);
    cu->lower_fd = cu->upper_fd = -1;
    writeback_policy_free(&cu->policy);
}
