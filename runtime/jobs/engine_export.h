/* io.revrun.export: an engine's container exports its vetted change set at
 * delete, since the engine removes the container (`run --rm`) before anyone
 * could run `revrun export` on it. */
#ifndef REVRUN_ENGINE_EXPORT_H
#define REVRUN_ENGINE_EXPORT_H

#include "runtime/container/ctx.h"

/* Before delete: when id is an engine's stopped container with an export
 * directory recorded, vet its upper and write the change set there, or,
 * when the set is refused, the reasons (DIR/refused.txt). Every outcome is
 * one log line; the delete goes on whatever it was (the engine needs it). */
void engine_export_at_delete(struct rr_ctx *ctx, const char *id);

#endif
