/* The agent's seccomp listener, held by the monitor (the floor's user
 * notifications, runtime/confine/profile.c): namespace attempts of an
 * agent whose own sandbox is refused are answered EPERM and counted for the
 * report; execs are recorded in the activity record and let run
 * (runtime/container/activity_exec.h). */
#ifndef REVRUN_NOTIFY_H
#define REVRUN_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "runtime/container/activity.h"
#include "runtime/container/activity_exec.h"

struct notify {
    int fd; /* -1 until the agent's process hands it over, or once let go */
    bool recording;
    uint64_t ns_refused;
    char ns_first[32];
    struct activity rec; /* rec.fd -1: no record */
    struct act_execs execs;
    bool have_execs;
    struct seccomp_notif *req; /* sized by the kernel (libseccomp): made once */
    struct seccomp_notif_resp *resp;
};

void notify_init(struct notify *n);
void notify_free(struct notify *n);

/* The activity record in the state directory (dirfd), before the
 * container runs; then, once its pid 1 is known, what reading execs needs
 * (flat: no process of it can make a pid namespace or change its root,
 * act_execs.flat). */
int notify_record(struct notify *n, int dirfd, struct rr_error *err);
int notify_started(struct notify *n, pid_t init_pid, bool flat, struct rr_error *err);

void notify_take_fd(struct notify *n, int fd);
/* One notification (the fd was readable). */
void notify_handle(struct notify *n);
/* One notification on another listener of the same container (engine
 * mode: a `revrun exec` process's, handed to the recorder): an exec is
 * recorded, anything else refused EPERM. */
void notify_handle_on(struct notify *n, int fd);
/* How long the monitor's poll may wait (-1: for ever), and what to do after
 * each round of it (timed_out: it waited that long; exits_ready: the fd of
 * act_execs_poll_fd was readable). */
int notify_timeout_ms(const struct notify *n);
void notify_idle(struct notify *n, bool timed_out, bool exits_ready);

/* The fd hung up: every process under the filter is gone. */
void notify_hangup(struct notify *n);

/* Every process of the container is gone: the exits still pending, the
 * record's last line. Idempotent. */
void notify_finish(struct notify *n);

#endif
