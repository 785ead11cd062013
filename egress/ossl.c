#define EG_OSSL_TABLE_ITSELF /* the real names: the table is filled by them */
#include "egress/ossl.h"

#include <pthread.h>

#include "common/dltable.h"

struct eg_ossl eg_ossl_table;
static void *handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* libssl's handle: dlsym searches it and its dependencies, libcrypto. */
static int load_locked(struct rr_error *err)
{
#define EG_OSSL_SLOT(name) (void **)&eg_ossl_table.name,
    static const char *const names[] = {EG_OSSL_FUNCS(DL_TABLE_NAME)};
    void **const slots[] = {EG_OSSL_FUNCS(EG_OSSL_SLOT)};
#undef EG_OSSL_SLOT
    void *h;

    if (dl_table_open(DLIB_SSL, names, slots, sizeof(names) / sizeof(names[0]), &h, err) < 0)
        return -1;
    __atomic_store_n(&handle, h, __ATOMIC_RELEASE);
    return 0;
}

int eg_ossl_load(struct rr_error *err)
{
    int r = 0;

    if (eg_ossl_loaded())
        return 0;
    pthread_mutex_lock(&lock);
    if (handle == NULL)
        r = load_locked(err);
    pthread_mutex_unlock(&lock);
    return r;
}

bool eg_ossl_loaded(void)
{
    return __atomic_load_n(&handle, __ATOMIC_ACQUIRE) != NULL;
}
