/* What the git-aware classification found beside the change set: the paths
 * the checkout's ignore rules kept out, the agent's churn under .git, and the
 * subjects of the commits it made. Shown to the operator (summary, reports);
 * never applied and never part of the digest. Pure data. */
#ifndef REVRUN_WB_GITINFO_H
#define REVRUN_WB_GITINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

#define WB_IGNORED_SHOWN 10 /* ignored paths named in the reports */
#define WB_COMMITS_SHOWN 20 /* commit subjects listed */
#define WB_SUBJECT_MAX 200  /* bytes of a subject kept (before escaping) */
#define WB_BODY_MAX 2000    /* bytes of a commit's body kept (before escaping) */
#define WB_GIT_PROBLEM_MAX 400 /* bytes of the note on what was not read */

struct wb_text {
    char *s; /* hostile bytes, NUL-terminated; escaped where shown */
    size_t len;
};

struct wb_gitinfo {
    bool repo;            /* the checkout is a git repository: the rules applied */
    bool include_ignored; /* revrun.writeback.ignored is "include" */
    uint64_t ignored;     /* files (and symlinks) left out of the set by the ignore rules */
    uint64_t ignored_names; /* the names standing for them: a directory stands for its files */
    struct wb_text ignored_first[WB_IGNORED_SHOWN];
    uint64_t ignored_first_files[WB_IGNORED_SHOWN]; /* directories: the files they hold */
    size_t n_ignored_first;
    uint64_t scratch;  /* entries the agent changed under .git */
    bool scratch_more; /* counting stopped at its cap: at least that many */
    struct wb_text commits[WB_COMMITS_SHOWN]; /* newest first */
    struct wb_text bodies[WB_COMMITS_SHOWN];  /* theirs, "" when none (cut at WB_BODY_MAX) */
    size_t n_commits;
    bool commits_more;     /* there are more than listed (or the walk stopped) */
    bool commits_off_base; /* the agent's HEAD moved, but not on top of the checkout's */
    bool commits_packed;   /* the walk met a commit in a pack the agent wrote (git gc,
                            * repack) that could not be read within the bounds (gitpack.h) */
    char packed_why[160];  /* why (hostile-free text of revrun's own) */
    char problem[WB_GIT_PROBLEM_MAX]; /* why an index or ignore file was not read ("" when
                                       * all were) */
    char base_problem[WB_GIT_PROBLEM_MAX]; /* why no base commit is recorded ("" when one
                                            * is, or the checkout is no repository) */
};

/* Count one ignored path (a directory: with the files it holds), keeping its
 * name when fewer than WB_IGNORED_SHOWN are. */
int wb_gitinfo_ignore(struct wb_gitinfo *gi, const char *path, size_t len, bool dir,
                      uint64_t files, struct rr_error *err);

/* Keep one commit's subject (cut at WB_SUBJECT_MAX bytes) and body (cut at
 * WB_BODY_MAX; NULL for none). */
int wb_gitinfo_commit(struct wb_gitinfo *gi, const char *subject, size_t len, const char *body,
                      size_t blen, struct rr_error *err);

void wb_gitinfo_free(struct wb_gitinfo *gi);

#endif
