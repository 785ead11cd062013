#include "runtime/confine/caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int capget_v3(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return (int)syscall(SYS_capget, &hdr, data);
}

static int capset_v3(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    return (int)syscall(SYS_capset, &hdr, data);
}

int caps_raise_effective(struct rr_error *err)
{
    struct __user_cap_data_struct data[2];

    if (capget_v3(data) < 0)
        return rr_fail(err, errno, "capget");
    data[0].effective = data[0].permitted;
    data[1].effective = data[1].permitted;
    if (capset_v3(data) < 0)
        return rr_fail(err, errno, "capset");
    return 0;
}

int caps_drop_all(struct rr_error *err)
{
    struct __user_cap_data_struct data[2] = {{0, 0, 0}, {0, 0, 0}};
    int cap;

    /* The bounding set first, while CAP_SETPCAP is still effective. The loop
     * runs until the kernel says the capability does not exist, so caps newer
     * than these headers are dropped too. */
    for (cap = 0;; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
            if (errno == EINVAL)
                break;
            return rr_fail(err, errno, "drop bounding capability %d", cap);
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        return rr_fail(err, errno, "clear ambient capabilities");
    if (capset_v3(data) < 0)
        return rr_fail(err, errno, "capset (drop all)");
    if (capget_v3(data) < 0)
        return rr_fail(err, errno, "capget");
    for (int i = 0; i < 2; i++)
        if (data[i].effective || data[i].permitted || data[i].inheritable)
            return rr_fail(err, EPERM, "capabilities remain after dropping them all");
    for (cap = 0; cap < 64; cap++) {
        int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (r < 0)
            break;
        if (r == 1)
            return rr_fail(err, EPERM, "bounding capability %d remains", cap);
    }
    return 0;
}

int caps_set_masks(const uint64_t sets[5], struct rr_error *err)
{
    struct __user_cap_data_struct data[2];
    int cap;

    for (cap = 0; cap < 64; cap++) {
        if (sets[0] & (1ULL << cap))
            continue;
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
            if (errno == EINVAL)
                break;
            return rr_fail(err, errno, "drop bounding capability %d", cap);
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
        return rr_fail(err, errno, "clear ambient capabilities");
    data[0].effective = (uint32_t)sets[1];
    data[1].effective = (uint32_t)(sets[1] >> 32);
    data[0].inheritable = (uint32_t)sets[2];
    data[1].inheritable = (uint32_t)(sets[2] >> 32);
    data[0].permitted = (uint32_t)sets[3];
    data[1].permitted = (uint32_t)(sets[3] >> 32);
    if (capset_v3(data) < 0)
        return rr_fail(err, errno, "capset");
    for (cap = 0; cap < 64; cap++)
        if ((sets[4] & (1ULL << cap)) &&
            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
            return rr_fail(err, errno, "raise ambient capability %d", cap);
    if (capget_v3(data) < 0)
        return rr_fail(err, errno, "capget");
    if ((((uint64_t)data[1].effective << 32) | data[0].effective) & ~sets[1] ||
        (((uint64_t)data[1].permitted << 32) | data[0].permitted) & ~sets[3] ||
        (((uint64_t)data[1].inheritable << 32) | data[0].inheritable) & ~sets[2])
        return rr_fail(err, EPERM, "capabilities beyond the granted sets remain");
    for (cap = 0; cap < 64; cap++) {
        int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (r < 0)
            break;
        if (r == 1 && !(sets[0] & (1ULL << cap)))
            return rr_fail(err, EPERM, "bounding capability %d remains", cap);
    }
    return 0;
}
