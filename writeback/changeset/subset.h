/* Part of a change set: `apply --only PATTERN` / `--exclude PATTERN` with
 * the whole set's digest approved. A pattern is a path or a glob, matched
 * against each change's path with fnmatch(3): '*', '?' and '[...]' stay
 * within a name unless the pattern holds "**" (then '*' crosses '/' too),
 * and a pattern matching a directory matches everything under it. A
 * change is kept when some --only pattern matches it (or there is none)
 * and no --exclude pattern does; a pattern that matches no change is a
 * mistake and said so.
 *
 * A subset that would leave a state revrun can see is broken is refused,
 * each path with its reason:
 *   - a kept change under a directory the set makes (added, or a file or
 *     symlink replaced by one) that is left out;
 *   - a kept removal of a directory (deleted, or replaced by a file or a
 *     symlink) while a change under it is left out;
 *   - half of a rename: a deleted file and an added one with the same
 *     content (not empty), one kept and the other left out.
 * Pure. */
#ifndef REVRUN_WB_SUBSET_H
#define REVRUN_WB_SUBSET_H

#include <stdbool.h>
#include <stddef.h>

#include "writeback/changeset/changeset.h"

struct wb_subset_spec {
    const char *const *only; /* NULL-terminated, or NULL */
    const char *const *exclude;
};

static inline bool wb_subset_wanted(const struct wb_subset_spec *s)
{
    return (s->only && s->only[0]) || (s->exclude && s->exclude[0]);
}

/* Does pattern select path? */
bool wb_subset_match(const char *pattern, const char *path);

/* keep[i] for each change of cs (sorted). -1 with the pattern named when
 * one matches no change. */
int wb_subset_select(const struct wb_changeset *cs, const struct wb_subset_spec *spec, bool *keep,
                     struct rr_error *err);

/* Why that selection is broken, as notes (path and reason) in why: 0 when
 * it is not. -1 only for ENOMEM. */
int wb_subset_check(const struct wb_changeset *cs, const bool *keep, struct wb_notes *why,
                    struct rr_error *err);

/* out: the kept changes of cs (copies, sorted) and cs's origin (a copy). */
int wb_subset_take(const struct wb_changeset *cs, const bool *keep, struct wb_changeset *out,
                   struct rr_error *err);

#endif
