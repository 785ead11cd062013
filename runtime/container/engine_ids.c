#include "runtime/container/engine_ids.h"

#include <errno.h>
#include <linux/sched.h>
#include <linux/securebits.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bundle/policy.h"
#include "runtime/container/idalloc.h"

int engine_ids_take(const struct rr_config *cfg, bool rootless, const char *policy_file,
                    const char *root, const char *cid, struct engine_ids *ids,
                    struct rr_error *err)
{
    struct rr_id_range r;

    *ids = (struct engine_ids){.taken = false, .held = -1};
    if (policy_load_engine_ids(policy_file, &r, err) < 0)
        return -1;
    ids->base = r.first;
    if (rootless || (cfg->linux.n_uid_mappings > 0 && cfg->linux.n_gid_mappings > 0))
        return 0;
    if (idalloc_take_block(&r, POLICY_ENGINE_BLOCK, &ids->base, root, cid, &ids->held, err) < 0)
        return rr_wrap(err, "the container's host ids");
    ids->taken = true;
    return 0;
}

int engine_ids_hold(const struct engine_ids *ids, pid_t init, struct rr_error *err)
{
    if (!ids->taken)
        return 0;
    if (idalloc_hold_init(ids->held, init, err) < 0)
        return rr_wrap(err, "the container's host ids");
    return 0;
}

void engine_ids_drop(struct engine_ids *ids)
{
    if (ids->taken)
        idalloc_drop(ids->base, &ids->held);
    ids->taken = false;
}

void engine_ids_close(struct engine_ids *ids)
{
    if (ids->held >= 0)
        close(ids->held);
    ids->held = -1;
}

static pid_t clone_plain(unsigned flags)
{
    struct clone_args ca = {.flags = flags, .exit_signal = SIGCHLD};
    long pid = syscall(SYS_clone3, &ca, sizeof(ca));

    if (pid < 0 && errno == ENOSYS)
        pid = syscall(SYS_clone, (unsigned long)flags | SIGCHLD, 0, 0, 0, 0);
    return (pid_t)pid;
}

/* Back to root (euid and fsuid) with the securebits as they were: create
 * cannot go on as anyone else. */
static void back_to_root(int bits)
{
    if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 || prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
        _exit(127);
}

pid_t engine_clone_owned(unsigned flags, uid_t owner)
{
    int bits, e;
    pid_t pid;

    if (owner == 0 || geteuid() != 0 || !(flags & CLONE_NEWUSER))
        return clone_plain(flags);
    bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
    if (bits < 0 || prctl(PR_SET_SECUREBITS, bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0)
        return -1;
    /* The kernel makes the euid at clone the namespace's owner. */
    if (setresuid((uid_t)-1, owner, (uid_t)-1) < 0) {
        e = errno;
        back_to_root(bits);
        errno = e;
        return -1;
    }
    /* fsuid stays root's: the child opens what create made (root's) before
     * its ids are mapped, as it always did */
    setfsuid(0);
    if ((uid_t)setfsuid((uid_t)-1) != 0) {
        back_to_root(bits);
        errno = EPERM;
        return -1;
    }
    pid = clone_plain(flags);
    e = errno;
    if (pid == 0) {
        if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
            _exit(127);
        return 0;
    }
    back_to_root(bits);
    errno = e;
    return pid;
}
