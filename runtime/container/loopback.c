#include "runtime/container/loopback.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/cleanup.h"

int loopback_up(struct rr_error *err)
{
    struct ifreq ifr = {0};
    _cleanup_close_ int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (s < 0)
        return rr_fail(err, errno, "network: socket");
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
    if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
        return rr_fail(err, errno, "network: lo flags");
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
        return rr_fail(err, errno, "network: bring lo up");
    return 0;
}
