/* Internals shared by the walk (scan.c), what it records (scan_record.c),
 * the lower side (scan_lower.c), the per-entry checks (scan_entry.c) and the
 * checkout's git rules (scan_git.c). Not for other parts. */
#ifndef REVRUN_WB_SCAN_INT_H
#define REVRUN_WB_SCAN_INT_H

#include <stdarg.h>
#include <sys/stat.h>

#include "writeback/scan/scan.h"

struct scanner {
    const struct wb_scan_input *in;
    struct wb_scan *out;
    const struct rr_writeback_policy *pol;
    char *path; /* the entry being looked at, relative to the top */
    size_t path_cap;
    size_t entries, walk_cap;
    uint64_t total_bytes;
    bool total_refused;
    struct wb_git *git; /* the checkout's repository, or NULL: no git rules */
    bool gitfile;       /* its .git is a gitfile (a worktree's): no git directory */
    size_t *drops;      /* changes (indices) that the ignore rules leave out */
    size_t n_drops, cap_drops;
    struct rr_error *err;
};

/* One directory of the walk's explicit stack. */
struct uframe {
    int ufd;            /* the upper directory */
    int lfd;            /* the checkout's directory at the same path, or -1 */
    bool lower_visible; /* the merged directory shows the lower's entries */
    bool sgid;
    size_t plen;
    char **names;
    size_t n, i;
    /* git: the dir-add of this directory (or SIZE_MAX), the change count
     * when it was entered, and whether something below it was ignored */
    size_t dir_change, cs_mark, drops_mark;
    bool ignored_below;
};

struct walk {
    struct uframe *stack;
    size_t depth;
};

/* Refuse the path sc->path[0..len) (len 0: the whole set); returns 0, or -1
 * on ENOMEM. */
int sc_refuse(struct scanner *sc, size_t len, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sc_warn(struct scanner *sc, size_t len, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* sc->path = sc->path[0..plen) + "/" + name; false when it would not fit
 * (the path is then longer than any cap allows). */
bool sc_child_path(struct scanner *sc, size_t plen, const char *name, size_t *len);

/* Count one visited entry; false (and the set refused) past the walk cap. */
bool sc_count(struct scanner *sc);

/* What the lower has at dirfd/name (dirfd -1: nothing), as a change side;
 * *skip when it cannot be one (a special file: refused). */
int sc_lower_obj(struct scanner *sc, int dirfd, const char *name, size_t plen, struct wb_obj *o,
                 bool *skip);

/* The lower subtree under the directory lfd (at sc->path[0..plen)) is gone
 * from the merged view except where the upper directory ufd (or -1: nothing)
 * still has an entry: every such lower path becomes a delete, but for what
 * the checkout's ignore rules leave out when keep_ignored (false where the
 * directory must go: a file or symlink replaced it). *kept (may be NULL):
 * something below stays, so the directory itself does too. */
int sc_hidden_lower(struct scanner *sc, int lfd, int ufd, size_t plen, bool keep_ignored,
                    bool *kept);

/* Leave the change at index idx out of the set (a directory git would not
 * call changed). */
int sc_git_drop(struct scanner *sc, size_t idx);

/* wb_read_names failed for the directory at sc->path[0..len): past the walk
 * cap that is a refusal (and the walk stops), anything else an error. */
int sc_names_failed(struct scanner *sc, size_t len);

/* Record a change at sc->path[0..len); takes ownership of nothing. */
int sc_change(struct scanner *sc, size_t len, const struct wb_obj *base, const struct wb_obj *new);

/* Record an upper entry for merged lookups. */
int sc_index(struct scanner *sc, size_t len, enum wb_upper_kind kind, bool opaque,
             const char *target);

/* The checkout's entry lfd/name (at sc->path[0..len)) that the agent
 * deleted: *ignored when the checkout's own ignore rules (those that
 * applied while it existed) match it and no index tracks it (build output
 * a `make clean` removed). git calls that no
 * change: it is counted with the ignored paths, not recorded, and not
 * indexed either, so the merged lookups see what the target keeps. */
int sc_git_deleted_ignored(struct scanner *sc, int lfd, const char *name, size_t len,
                           bool *ignored);

/* The set's origin from the checkout's HEAD and the agent's commits
 * (scan_origin.c); after the walk, on a git checkout. */
int sc_origin(struct scanner *sc);

/* Open dirfd/name as a directory for reading, no symlink, no mount. */
int sc_open_dir(int dirfd, const char *name);

/* The checkout's git rules (scan_git.c). sc->git is NULL when the checkout
 * is no repository; then none of these leaves anything out. */

/* A checkout that is a git repository gets git's idea of the change. */
int sc_git_open(struct scanner *sc);

/* Is sc->path[0..len) left out? Then it is counted (and its directory knows
 * something below was), and only indexed for the merged lookups. */
int sc_git_ignored(struct scanner *sc, struct uframe *f, size_t len, bool in_lower,
                   bool *ignored);

/* A new directory the rules ignore as a whole, with nothing below it
 * tracked: not walked, its files only counted, indexed as opaque. */
int sc_git_ignored_dir(struct scanner *sc, struct uframe *f, int fd, size_t len, bool *ignored);

/* Leaving a new directory: one that holds no change but ignored ones is no
 * change either. */
int sc_git_leave(struct scanner *sc, struct walk *w);

/* After the walk: the changes the rules left out go (the sort restores the
 * order). */
void sc_git_compact(struct scanner *sc);

/* The scratch .git of a checkout that is a repository: not walked. */
bool sc_git_scratch_dir(const struct scanner *sc, const struct uframe *f, const char *name,
                        const struct stat *st);

/* What the agent did in .git: counted, and its commits' subjects kept. */
int sc_git_after(struct scanner *sc);

#endif
