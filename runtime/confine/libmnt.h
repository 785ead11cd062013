/* libmount, loaded with dlopen: linked in, it and its dependencies
 * (libblkid, libselinux, libpcre2) cost every revrun command ~1 ms of
 * relocations at start-up (full RELRO binds every symbol then), which
 * `revrun diff` on a small change set must not pay. main() loads it before
 * any command that may create, confine, sweep or inspect containers, so it
 * is in place before a process confines itself or leaves the host's root;
 * the users below also ask for it (a no-op once loaded), so a unit test or
 * a light command reaching them loads it there, on the host.
 *
 * Files that call libmount include this header instead of <libmount.h>:
 * it maps each name onto the table. A name called but missing from the
 * table fails the link (revrun no longer links libmount). */
#ifndef REVRUN_CONFINE_LIBMNT_H
#define REVRUN_CONFINE_LIBMNT_H

#include <stdbool.h>

#include <libmount.h>

#include "common/error.h"

#define RR_LIBMNT_FUNCS(X)                                                                         \
    X(mnt_new_table_from_file)                                                                     \
    X(mnt_new_iter)                                                                                \
    X(mnt_table_next_fs)                                                                           \
    X(mnt_fs_get_fstype)                                                                           \
    X(mnt_fs_get_target)                                                                           \
    X(mnt_fs_get_fs_options)                                                                       \
    X(mnt_fs_get_vfs_options)                                                                      \
    X(mnt_fs_get_id)                                                                               \
    X(mnt_fs_get_root)                                                                             \
    X(mnt_fs_get_devno)                                                                            \
    X(mnt_optstr_get_option)                                                                       \
    X(mnt_optstr_get_flags)                                                                        \
    X(mnt_split_optstr)                                                                            \
    X(mnt_get_builtin_optmap)                                                                      \
    X(mnt_free_iter)                                                                               \
    X(mnt_unref_table)

struct rr_libmnt {
#define RR_LIBMNT_FIELD(name) __typeof__(name) *name;
    RR_LIBMNT_FUNCS(RR_LIBMNT_FIELD)
#undef RR_LIBMNT_FIELD
};

extern struct rr_libmnt rr_libmnt_table;

/* Load it once per process (later calls return at once). */
int rr_libmnt_load(struct rr_error *err);

#ifndef RR_LIBMNT_TABLE_ITSELF
#define mnt_new_table_from_file (rr_libmnt_table.mnt_new_table_from_file)
#define mnt_new_iter (rr_libmnt_table.mnt_new_iter)
#define mnt_table_next_fs (rr_libmnt_table.mnt_table_next_fs)
#define mnt_fs_get_fstype (rr_libmnt_table.mnt_fs_get_fstype)
#define mnt_fs_get_target (rr_libmnt_table.mnt_fs_get_target)
#define mnt_fs_get_fs_options (rr_libmnt_table.mnt_fs_get_fs_options)
#define mnt_fs_get_vfs_options (rr_libmnt_table.mnt_fs_get_vfs_options)
#define mnt_fs_get_id (rr_libmnt_table.mnt_fs_get_id)
#define mnt_fs_get_root (rr_libmnt_table.mnt_fs_get_root)
#define mnt_fs_get_devno (rr_libmnt_table.mnt_fs_get_devno)
#define mnt_optstr_get_option (rr_libmnt_table.mnt_optstr_get_option)
#define mnt_optstr_get_flags (rr_libmnt_table.mnt_optstr_get_flags)
#define mnt_split_optstr (rr_libmnt_table.mnt_split_optstr)
#define mnt_get_builtin_optmap (rr_libmnt_table.mnt_get_builtin_optmap)
#define mnt_free_iter (rr_libmnt_table.mnt_free_iter)
#define mnt_unref_table (rr_libmnt_table.mnt_unref_table)
#endif

#endif
