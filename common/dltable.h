/* A library loaded with dlopen, and the functions revrun takes from it:
 * linked in, libssl, libmount and libgit2 would cost every command their
 * relocations (egress/ossl.h, runtime/confine/libmnt.h, writeback/git/git2.h
 * say which commands load which). common/dlibs.h says which sonames each
 * is found by and which package provides it. */
#ifndef REVRUN_COMMON_DLTABLE_H
#define REVRUN_COMMON_DLTABLE_H

#include <stddef.h>

#include "common/dlibs.h"
#include "common/error.h"

/* Opens LIB by the first of its sonames that loads (RTLD_NOW |
 * RTLD_LOCAL: its symbols stay out of everything else's way) and resolves
 * NAMES[i] into *SLOTS[i]. A soname that lacks a name is closed and the
 * next tried, so a table is whole or empty. The error of a library that
 * cannot be had names every soname tried, the loader's reason and the
 * package to install. The caller serialises calls and publishes *HANDLE. */
int dl_table_open(enum dlib lib, const char *const names[], void **const slots[], size_t n,
                  void **handle, struct rr_error *err);

/* The soname LIB was loaded by in this process, or NULL. */
const char *dl_table_loaded(enum dlib lib);

/* For an X-macro list of function names: the NAMES array's items. */
#define DL_TABLE_NAME(name) #name,

#endif
