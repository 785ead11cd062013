/* The per-container state files, as plain structs and JSON text:
 *   state.json  written once by create: who and where the container is;
 *   exit.json   written by the monitor when the container's process ends.
 * Reading them back treats them as untrusted text (caps, types, ranges). */
#ifndef REVRUN_STATE_H
#define REVRUN_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

#define RR_ID_MAX 64

struct rr_state {
    char id[RR_ID_MAX + 1];
    char *bundle;           /* absolute path */
    char *lower;            /* the checkout on the host */
    char *store;            /* where the upper lives, in the monitor's mount namespace */
    char *backend;          /* "native" or "fuse" */
    char *created;          /* RFC 3339 */
    int64_t pid;            /* the container's pid 1, in revrun's pid namespace */
    uint64_t pid_start;     /* its start time (clock ticks since boot) */
    int64_t monitor_pid;
    uint64_t monitor_start;
    bool rootless;
    uint32_t owner;         /* uid that created it */
    char *cgroup;           /* cgroup path relative to each hierarchy, or NULL */
    char *cgroup_version;   /* "v1", "v2" or NULL */
    char *rootfs;           /* the bundle's root.path, absolute (what `state` reports) */
    /* the config's annotations at create: pairs, key then value */
    char **annotations;
    size_t n_annotations;   /* number of pairs */
};

/* Add one annotation pair to s (copies). -1 on ENOMEM. */
int state_add_annotation(struct rr_state *s, const char *key, const char *value);

struct rr_exit {
    int64_t wait_status; /* as waitpid reports it */
    bool timed_out;
    bool oom_killed;
    char *finished;      /* RFC 3339 */
    char *error;         /* why the process could not be started, or NULL */
    uint64_t ns_refused;       /* namespace attempts (unshare, clone, setns) refused */
    char *ns_refused_syscall;  /* the first of them, or NULL */
};

/* [A-Za-z0-9][A-Za-z0-9_.-]{0,63} */
bool rr_id_valid(const char *id);

int state_to_json(const struct rr_state *s, char **out, struct rr_error *err);
int state_from_json(const char *text, size_t len, struct rr_state *s, struct rr_error *err);
void state_free(struct rr_state *s);

int exit_to_json(const struct rr_exit *e, char **out, struct rr_error *err);
int exit_from_json(const char *text, size_t len, struct rr_exit *e, struct rr_error *err);
void exit_free(struct rr_exit *e);

/* RFC 3339 UTC timestamp of now, with nanoseconds. */
void rr_now_rfc3339(char *buf, size_t len);

#endif
