/* A library loaded with dlopen, and the functions revrun takes from it:
 * linked in, libssl, libmount and libgit2 would cost every command their
 * relocations (egress/ossl.h, runtime/confine/libmnt.h, writeback/git/git2.h
 * say which commands load which). */
#ifndef REVRUN_COMMON_DLTABLE_H
#define REVRUN_COMMON_DLTABLE_H

#include <stddef.h>

#include "common/error.h"

/* Opens SONAME (RTLD_NOW | RTLD_LOCAL: its symbols stay out of everything
 * else's way) and resolves NAMES[i] into *SLOTS[i]. The first name it
 * lacks fails the load: the library is closed and every slot cleared, so
 * a table is whole or empty. WHAT names the library in errors. The
 * caller serialises calls and publishes *HANDLE. */
int dl_table_open(const char *soname, const char *what, const char *const names[],
                  void **const slots[], size_t n, void **handle, struct rr_error *err);

/* For an X-macro list of function names: the NAMES array's items. */
#define DL_TABLE_NAME(name) #name,

#endif
