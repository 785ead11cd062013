/* libgit2, loaded when a review first needs it (dlopen): linked in, it and
 * its dependencies cost every revrun command a few milliseconds of loading,
 * and git_libgit2_init ~10 ms more (it parses the system CA bundle), which
 * a 10-change review of a 100,000-file checkout must not pay. The table
 * holds the functions write-back uses, resolved once per process. */
#ifndef REVRUN_WB_GIT2_H
#define REVRUN_WB_GIT2_H

#include <git2.h>
#include <git2/sys/mempack.h>

#include "common/error.h"

#define WB_GIT2_FUNCS(X)                                                                           \
    X(git_libgit2_init)                                                                            \
    X(git_libgit2_shutdown)                                                                        \
    X(git_libgit2_opts)                                                                            \
    X(git_error_last)                                                                              \
    X(git_repository_open_ext)                                                                     \
    X(git_repository_wrap_odb)                                                                     \
    X(git_repository_free)                                                                         \
    X(git_ignore_path_is_ignored)                                                                  \
    X(git_odb_new)                                                                                 \
    X(git_odb_add_backend)                                                                         \
    X(git_odb_write)                                                                               \
    X(git_odb_free)                                                                                \
    X(git_mempack_new)                                                                             \
    X(git_oid_fromstr)                                                                             \
    X(git_oid_equal)                                                                               \
    X(git_oid_tostr)                                                                               \
    X(git_commit_lookup)                                                                           \
    X(git_commit_summary)                                                                          \
    X(git_commit_body)                                                                             \
    X(git_commit_parentcount)                                                                      \
    X(git_commit_parent_id)                                                                        \
    X(git_commit_free)                                                                             \
    X(git_repository_path)                                                                         \
    X(git_repository_commondir)                                                                    \
    X(git_repository_odb)                                                                          \
    X(git_commit_tree_id)                                                                          \
    X(git_tree_lookup)                                                                             \
    X(git_tree_free)                                                                               \
    X(git_tree_entry_bypath)                                                                       \
    X(git_tree_entry_free)                                                                         \
    X(git_tree_entry_type)                                                                         \
    X(git_tree_entry_filemode)                                                                     \
    X(git_tree_entry_id)                                                                           \
    X(git_blob_lookup)                                                                             \
    X(git_blob_rawsize)                                                                            \
    X(git_blob_rawcontent)                                                                         \
    X(git_blob_free)                                                                               \
    X(git_blob_create_from_buffer)                                                                 \
    X(git_index_new)                                                                               \
    X(git_index_read_tree)                                                                         \
    X(git_index_remove)                                                                            \
    X(git_index_remove_directory)                                                                  \
    X(git_index_add)                                                                               \
    X(git_index_write_tree_to)                                                                     \
    X(git_index_free)                                                                              \
    X(git_odb_open_wstream)                                                                        \
    X(git_odb_stream_write)                                                                        \
    X(git_odb_stream_finalize_write)                                                               \
    X(git_odb_stream_free)                                                                         \
    X(git_signature_now)                                                                           \
    X(git_signature_default)                                                                       \
    X(git_signature_free)                                                                          \
    X(git_commit_create)                                                                           \
    X(git_reference_name_is_valid)                                                                 \
    X(git_reference_lookup)                                                                        \
    X(git_reference_target)                                                                        \
    X(git_reference_create)                                                                        \
    X(git_reference_free)                                                                          \
    X(git_oid_cmp)                                                                                 \
    X(git_config_open_default)                                                                     \
    X(git_config_get_string_buf)                                                                   \
    X(git_config_free)                                                                             \
    X(git_buf_dispose)

struct wb_git2 {
#define WB_GIT2_FIELD(name) __typeof__(name) *name;
    WB_GIT2_FUNCS(WB_GIT2_FIELD)
#undef WB_GIT2_FIELD
};

/* Load the library and fill the table, without initialising it (a no-op
 * once loaded): `revrun check` and a review's preflight ask this before
 * the agent runs. */
int wb_git2_load(struct rr_error *err);

/* The table, libgit2 initialised with no config search path (no system,
 * global or XDG config is ever read); NULL and err when it cannot be
 * loaded. Pair with wb_git2_release. */
const struct wb_git2 *wb_git2_acquire(struct rr_error *err);
void wb_git2_release(const struct wb_git2 *g2);

/* The same table for the operator's own repository (`apply --commit`):
 * git's config levels as git reads them (user.name and user.email live in
 * ~/.gitconfig), and no owner check (root applying onto a user's clone;
 * revrun makes the files as the owner instead, apply/gitowner.h). Never
 * for a checkout under review. */
const struct wb_git2 *wb_git2_acquire_operator(struct rr_error *err);

/* libgit2's last error text, for messages. */
const char *wb_git2_error(const struct wb_git2 *g2);

#endif
