/* revrun.out (`run --out DIR`): the agent writes /out, a size-capped tmpfs
 * the monitor made (outdir_make); when the agent has exited, the monitor
 * hands its regular files and directories to the host directory
 * (outdir_export) and nothing else: symlinks (to host secrets, for an
 * artifact uploader or a root consumer to follow), fifos, sockets and
 * device nodes are left behind and reported. */
#ifndef REVRUN_OUTDIR_H
#define REVRUN_OUTDIR_H

#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

/* Caps of the hand-over walk (the tmpfs caps the bytes). */
#define OUTDIR_MAX_DEPTH 64
#define OUTDIR_MAX_ENTRIES 100000

/* A detached tmpfs of size bytes, its root owned by uid/gid, mode 0755. */
int outdir_make(uint64_t size, uid_t uid, gid_t gid, struct rr_error *err);

/* What was not handed over: one call per entry, path relative to /out
 * (raw bytes: the caller escapes), why ("symlink", "fifo", ...). */
typedef void (*outdir_report_fn)(void *arg, const char *path, const char *why);

/* Copy the tree under from (the tmpfs' root) into the directory to, new
 * names only (an existing one is reported, not replaced), files 0644 or
 * 0755, directories 0755, owned by to's owner. *n_refused counts the
 * reports. -1 on a failure of the walk itself (what was copied stays). */
int outdir_export(int from, int to, outdir_report_fn report, void *arg, size_t *n_refused,
                  struct rr_error *err);

#endif
