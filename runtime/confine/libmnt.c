#define RR_LIBMNT_TABLE_ITSELF /* the real names: the table is filled by them */
#include "runtime/confine/libmnt.h"

#include <pthread.h>

#include "common/dltable.h"

struct rr_libmnt rr_libmnt_table;
static void *handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int load_locked(struct rr_error *err)
{
#define RR_LIBMNT_SLOT(name) (void **)&rr_libmnt_table.name,
    static const char *const names[] = {RR_LIBMNT_FUNCS(DL_TABLE_NAME)};
    void **const slots[] = {RR_LIBMNT_FUNCS(RR_LIBMNT_SLOT)};
#undef RR_LIBMNT_SLOT
    void *h;

    if (dl_table_open(DLIB_MOUNT, names, slots, sizeof(names) / sizeof(names[0]), &h, err) < 0)
        return -1;
    __atomic_store_n(&handle, h, __ATOMIC_RELEASE);
    return 0;
}

int rr_libmnt_load(struct rr_error *err)
{
    int r = 0;

    if (__atomic_load_n(&handle, __ATOMIC_ACQUIRE) != NULL)
        return 0;
    pthread_mutex_lock(&lock);
    if (handle == NULL)
        r = load_locked(err);
    pthread_mutex_unlock(&lock);
    return r;
}
