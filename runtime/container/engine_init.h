/* Engine mode's container process: cloned by `revrun create` into the new
 * namespaces, it sets the container up from inside, waits on the exec fifo
 * for `start`, then becomes the container's process (exec, as runc's init
 * does): its wait status is the container's, seen by whoever reaps it (the
 * shim or conmon, once `create` has exited and it is reparented to them). */
#ifndef REVRUN_ENGINE_INIT_H
#define REVRUN_ENGINE_INIT_H

#include "runtime/confine/profile/profile.h"
#include "runtime/confine/rootfs.h"
#include "runtime/confine/seccomp.h"

struct engine_init_args {
    const struct profile *p;
    const char *id;
    const char *bundle;
    const char *state_path; /* absolute: the mount point is reopened in the new namespace */
    int sync_fd;          /* to `revrun create` */
    struct rootfs_fds fds;
    int fifo_fd;          /* O_PATH of the exec fifo */
    int console_fd;       /* process.terminal: the console socket; else -1 */
    const struct seccomp_progs *seccomp;
    int preserve_fds;     /* --preserve-fds: 3 .. 3+N-1 cross the exec */
    int record_fd;        /* the policy records execs: to revrun's recorder, which is
                           * handed the floor's listener; else -1 */
};

__attribute__((noreturn)) void engine_init_main(struct engine_init_args *a);

#endif
