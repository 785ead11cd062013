/* Embedded repositories in any shape (embedded.c). git takes a directory
 * for a repository when it holds a HEAD and, beside it, objects/ and refs/
 * (a bare repository) or a commondir file pointing at them (setup.c,
 * is_git_directory). Run in such a directory, or below it where no .git
 * comes first, git reads that directory's config and runs what it names
 * (core.fsmonitor, core.hooksPath, ...). So a change inside a directory that
 * looks like one in the merged view is refused like a nested .git: the
 * agent made it one, or changes one the checkout holds. Names are matched as
 * macOS and Windows resolve them ("head", "OBJECTS", "refs." are the same
 * there). Directories under a .git are the .git rules' business. */
#ifndef REVRUN_WB_EMBEDDED_H
#define REVRUN_WB_EMBEDDED_H

#include <stdbool.h>
#include <stddef.h>

#include "writeback/scan/scan.h"

enum wb_gitdir_part {
    WB_GD_NONE = 0,
    WB_GD_HEAD = 1,      /* HEAD: a file or a symlink */
    WB_GD_OBJECTS = 2,   /* objects/: a directory or a symlink */
    WB_GD_REFS = 4,      /* refs/: a directory or a symlink */
    WB_GD_COMMONDIR = 8, /* commondir: a file or a symlink */
};

/* Which part of a git directory an entry named name[0..len) of that kind
 * would be (is_dir: a directory; is_link: a symlink, which git follows). */
enum wb_gitdir_part wb_gitdir_part(const char *name, size_t len, bool is_dir, bool is_link);

/* The parts found make a git directory. */
bool wb_gitdir_complete(unsigned parts);

/* Refuse ("embedded-repo") every directory of the merged view that looks
 * like a git directory and has a change at or below it. */
int wb_rules_embedded(struct wb_scan *s, struct rr_error *err);

#endif
