/* Compiling the profile's syscall rules (and the config's linux.seccomp) into
 * ready BPF programs, in the monitor, before the container exists; the
 * agent's process only loads them, as its very last step before exec. */
#ifndef REVRUN_SECCOMP_H
#define REVRUN_SECCOMP_H

#include <linux/filter.h>
#include <stddef.h>

#include "common/error.h"
#include "runtime/confine/profile.h"

struct seccomp_progs {
    struct sock_fprog prog[2]; /* [0] revrun's floor, [1] linux.seccomp (optional) */
    size_t n;
};

int seccomp_compile(const struct profile *p, struct seccomp_progs *out, struct rr_error *err);
/* The floor of revrun's host-side helpers (profile_helper_floor) alone, in
 * out->prog[0]. */
int seccomp_compile_helper(struct seccomp_progs *out, struct rr_error *err);

void seccomp_progs_free(struct seccomp_progs *s);

/* Load every program, floor first (so a config filter that denies seccomp()
 * itself cannot keep the floor out). -1 with errno on failure. */
int seccomp_progs_load(const struct seccomp_progs *s);

#endif
