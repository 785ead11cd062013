/* The libraries revrun loads with dlopen (common/dltable.h): which sonames
 * each is found by, what needs it, and the package that provides it.
 * `ldd` and a package's shlibdeps see none of them, so the package
 * declares them by hand (debian/control), `revrun check` shows a row each
 * (runtime/check/check_libs.c), and a review loads every one its stages
 * need before the agent starts (runtime/jobs/review_preflight.c). */
#ifndef REVRUN_COMMON_DLIBS_H
#define REVRUN_COMMON_DLIBS_H

#include <stddef.h>

enum dlib { DLIB_GIT2, DLIB_SSL, DLIB_MOUNT, DLIB_COUNT };

struct dlib_info {
    const char *name;           /* "libgit2" */
    const char *needed_for;     /* what fails without it */
    const char *const *sonames; /* NULL-terminated, tried in order */
    const char *pkg_debian12;   /* the package on Debian 12 */
    const char *pkg_ubuntu2404; /* and on Ubuntu 24.04 */
};

const struct dlib_info *dlib_info(enum dlib lib);

/* The package to install on this host (/etc/os-release), or both names
 * with their distributions when the host is neither. */
void dlib_package(enum dlib lib, char *buf, size_t len);

/* "libgit2.so.1.5 or libgit2.so.1.7": the sonames, for messages. */
void dlib_sonames(enum dlib lib, char *buf, size_t len);

#endif
