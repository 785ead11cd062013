/* Engine mode: an engine's bundle (no `revrun` section) created without a
 * monitor, owned by the engine's shim or conmon (see engine.c). */
#ifndef REVRUN_ENGINE_H
#define REVRUN_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "bundle/config.h"
#include "bundle/state.h"
#include "common/error.h"
#include "runtime/container/container.h"

int engine_create(const struct rr_ctx *ctx, const struct create_opts *o,
                  const struct rr_config *cfg, const char *bundle, int bundle_fd,
                  struct rr_error *err);

bool engine_state_is_engine(const struct rr_state *s);

/* Run the hooks of kind kept at create (poststart: after start; poststop:
 * at delete) with the state's status: all of them, each failure a warning
 * (logged here). -1 only when the kept config or the state cannot be read. */
int engine_after(int dirfd, const struct rr_state *s, enum rr_hook_kind kind, const char *status,
                 struct rr_error *err);

/* What create tightened, one line per field ("" when none). */
int engine_read_notes(int dirfd, char *out, size_t len);

/* key=value -> /proc/sys, in the caller's namespaces. */
int engine_write_sysctls(const struct rr_strv *kvs, struct rr_error *err);

#endif
