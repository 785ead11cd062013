#define EG_OSSL_TABLE_ITSELF /* the real names: the table is filled by them */
#include "egress/ossl.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

struct eg_ossl eg_ossl_table;
static void *handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* libssl's handle: dlsym searches it and its dependencies, libcrypto. */
static int load_locked(struct rr_error *err)
{
    const char *missing = NULL;
    void *h;

    if ((h = dlopen(EG_LIBSSL_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return rr_fail(err, ENOENT, "loading OpenSSL (%s): %s", EG_LIBSSL_SONAME, dlerror());
#define EG_OSSL_LOAD(name)                                                                         \
    if ((*(void **)&eg_ossl_table.name = dlsym(h, #name)) == NULL && missing == NULL)             \
        missing = #name;
    EG_OSSL_FUNCS(EG_OSSL_LOAD)
#undef EG_OSSL_LOAD
    if (missing != NULL) {
        dlclose(h);
        eg_ossl_table = (struct eg_ossl){0};
        return rr_fail(err, ENOENT, "OpenSSL (%s) has no %s", EG_LIBSSL_SONAME, missing);
    }
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
