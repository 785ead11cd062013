/* Scope-bound cleanup so that early returns cannot leak.
 *
 * Pitfalls: a variable marked _cleanup_free_ must be initialised (NULL) at
 * its declaration, and ownership handed to a caller must be taken with
 * rr_steal_ptr/rr_steal_fd, or the cleanup frees what the caller now holds.
 * The close helper preserves errno so that "return rr_fail(err, errno...)"
 * after a failed call still reports the right errno. */
#ifndef REVRUN_CLEANUP_H
#define REVRUN_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void rr_freep(void *p)
{
    int saved = errno;
    free(*(void **)p);
    errno = saved;
}

static inline void rr_closep(const int *fd)
{
    if (*fd >= 0) {
        int saved = errno;
        close(*fd);
        errno = saved;
    }
}

static inline void rr_fclosep(FILE **f)
{
    if (*f != NULL) {
        int saved = errno;
        fclose(*f);
        errno = saved;
    }
}

#define _cleanup_free_ __attribute__((cleanup(rr_freep)))
#define _cleanup_close_ __attribute__((cleanup(rr_closep)))
#define _cleanup_fclose_ __attribute__((cleanup(rr_fclosep)))

static inline int rr_steal_fd(int *fd)
{
    int r = *fd;
    *fd = -1;
    return r;
}

static inline void *rr_steal_ptr_impl(void **p)
{
    void *r = *p;
    *p = NULL;
    return r;
}
#define rr_steal_ptr(pp) rr_steal_ptr_impl((void **)(pp))

#define RR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
