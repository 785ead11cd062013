#ifndef REVRUN_SWEEP_H
#define REVRUN_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "runtime/container/ctx.h"

#define SWEEP_MAX_LINES 256

struct sweep_opts {
    uint64_t older_than_s; /* 0: any age */
    const char *exports;   /* a directory of exported change sets, or NULL */
};

struct sweep_report {
    char lines[SWEEP_MAX_LINES][256];
    size_t n;
};

int container_sweep(const struct rr_ctx *ctx, const struct sweep_opts *o,
                    struct sweep_report *rep, struct rr_error *err);

/* cgroups below this state root's scope that belong to no container */
int sweep_orphan_cgroups(const struct rr_ctx *ctx, struct sweep_report *rep,
                         struct rr_error *err);

/* change sets (directories holding manifest.json) older than the age */
int sweep_exports(const struct sweep_opts *o, struct sweep_report *rep, struct rr_error *err);

/* "90", "90s", "15m", "2h", "7d" */
bool parse_duration(const char *s, uint64_t *seconds);

#endif
