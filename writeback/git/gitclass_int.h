/* Internals of the classifier (gitclass.c), shared with the shadow
 * repository it makes for libgit2 (gitclass_shadow.c) and the indexes it
 * reads with revrun's own reader (gitclass_index.c). Not for other parts. */
#ifndef REVRUN_WB_GITCLASS_INT_H
#define REVRUN_WB_GITCLASS_INT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "writeback/git/git2.h"
#include "writeback/git/gitclass.h"
#include "writeback/git/gitindex.h"
#include "writeback/git/gitinfo.h"
#include "writeback/git/gitrules.h"

/* An ignore file of the merged view, kept until the shadow needs it. */
struct ignore_file {
    char *dir; /* "" for the top */
    size_t dlen;
    char *text;
    size_t len;
    struct wb_rules *rules; /* parsed once: the quick answers (gitrules.h) */
    bool written;           /* copied into the shadow */
};

/* One set of rules and the shadow repository libgit2 evaluates them in. */
struct rules {
    struct ignore_file *files;
    size_t n_files, cap_files, bytes;
    size_t *stack; /* per directory the walk is in: its file, or SIZE_MAX */
    size_t depth, cap_stack;
    char *exclude; /* .git/info/exclude, or NULL */
    size_t exclude_len;
    struct wb_rules *exclude_rules;
    uint32_t n_rules; /* of the files kept and the exclude: capped in all */
    char shadow[PATH_MAX];
    int shadow_fd;
    bool shadow_made;
    git_repository *repo;
};

struct wb_git {
    int lower_fd, upper_fd; /* borrowed */
    enum wb_format fmt;
    /* What the agent leaves (the merged view's files: an addition or an
     * edit is judged by them), and what the checkout had (a deletion is
     * judged by the rules that applied while the file existed). */
    struct rules merged, lower;
    const struct wb_git2 *g2; /* loaded on the first question a rule may answer */
    bool worktree;            /* a gitfile followed (gitworktree.h) */
    int wt_index_fd;          /* then its index (O_PATH), or -1 */
    bool indexes_read;
    bool lower_failed; /* the checkout's index could not be read (the agent's never sets it) */
    struct wb_gitindex *lower_idx, *upper_idx;
    struct wb_ignore_budget budget; /* both sets' questions, this vet's */
    char problem[WB_GIT_PROBLEM_MAX];
};

/* Remove the set's shadow directory (made by gc_need_lib). */
void gc_remove_shadow(struct rules *rs);

/* libgit2 and the shadow, the first time a rule may answer; afterwards the
 * ignore files met since the last question, into the shadow. */
int gc_need_lib(struct wb_git *g, struct rules *rs, struct rr_error *err);

/* The checkout's index (and the agent's) into g, once, on the first path a
 * rule ignores; what could not be read goes into g->problem. */
void gc_load_indexes(struct wb_git *g);

#endif
