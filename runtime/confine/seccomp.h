/* Compiling the profile's syscall rules (and the config's linux.seccomp) into
 * ready BPF programs, in the monitor, before the container exists; the
 * agent's process only loads them, as its very last step before exec. */
#ifndef REVRUN_SECCOMP_H
#define REVRUN_SECCOMP_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"
#include "runtime/confine/profile/profile.h"

struct seccomp_progs {
    struct sock_fprog prog[2]; /* [0] revrun's floor, [1] linux.seccomp (optional) */
    size_t n;
    bool notify; /* prog[0] has user-notification rules (profile: report) */
};

int seccomp_compile(const struct profile *p, struct seccomp_progs *out, struct rr_error *err);
/* The floor of revrun's host-side helpers (profile_helper_floor) alone, in
 * out->prog[0]. */
int seccomp_compile_helper(struct seccomp_progs *out, struct rr_error *err);

void seccomp_progs_free(struct seccomp_progs *s);

/* Load every program, floor first (so a config filter that denies seccomp()
 * itself cannot keep the floor out). -1 with errno on failure. */
int seccomp_progs_load(const struct seccomp_progs *s);

/* The agent's load: as seccomp_progs_load, but the floor is installed with
 * a listener when it has notification rules; *listener is its fd (close-on-
 * exec), or -1. Loaded without a listener (the relay's, the resolver's),
 * those rules fail with ENOSYS: still refused. */
int seccomp_progs_load_agent(const struct seccomp_progs *s, int *listener);

#endif
