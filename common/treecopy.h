/* Copying a tree that someone else shaped (an agent's HOME after it ran, an
 * operator's seed directory) into one revrun owns: no symlink is followed
 * or copied, only regular files and directories are, depth, entry count and
 * bytes are capped (bytes while reading, not only before), and what is left
 * out is counted and named. No recursion: an explicit stack of max_depth. */
#ifndef REVRUN_TREECOPY_H
#define REVRUN_TREECOPY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct rr_copy_limits {
    uint64_t max_files;  /* regular files and directories made, in all */
    uint64_t max_bytes;  /* bytes copied, in all */
    unsigned max_depth;  /* directory levels below the top */
    bool keep_mode;      /* permission bits & 0755 kept; else files 0600, dirs 0700 */
    bool chown;          /* chown what is made to uid:gid */
    uid_t uid;
    gid_t gid;
};

#define RR_COPY_SKIPPED_NAMES 32

struct rr_copy_report {
    uint64_t files, dirs, bytes;
    uint64_t skipped;    /* entries left out (not file/dir, unreadable, over a cap) */
    bool capped;         /* a cap was reached */
    char *skipped_names[RR_COPY_SKIPPED_NAMES]; /* relative paths, raw bytes: escape to show */
    size_t n_skipped_names;
};

/* Copy the contents of src_dir (an fd open on a directory) into dst_dir.
 * -1 only for failures on revrun's side (the destination, memory); what
 * the source makes impossible is skipped and reported. */
int rr_copy_tree(int src_dir, int dst_dir, const struct rr_copy_limits *lim,
                 struct rr_copy_report *rep, struct rr_error *err);

/* One regular file (src_fd open on it) as dst_dir/name, under the same caps. */
int rr_copy_tree_file(int src_fd, int dst_dir, const char *name, const struct rr_copy_limits *lim,
                      struct rr_copy_report *rep, struct rr_error *err);

void rr_copy_report_free(struct rr_copy_report *rep);

#endif
