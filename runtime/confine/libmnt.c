#define RR_LIBMNT_TABLE_ITSELF /* the real names: the table is filled by them */
#include "runtime/confine/libmnt.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>

struct rr_libmnt rr_libmnt_table;
static void *handle;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int load_locked(struct rr_error *err)
{
    const char *missing = NULL;
    void *h;

    if ((h = dlopen(RR_LIBMOUNT_SONAME, RTLD_NOW | RTLD_LOCAL)) == NULL)
        return rr_fail(err, ENOENT, "loading libmount (%s): %s", RR_LIBMOUNT_SONAME, dlerror());
#define RR_LIBMNT_LOAD(name)                                                                       \
    if ((*(void **)&rr_libmnt_table.name = dlsym(h, #name)) == NULL && missing == NULL)           \
        missing = #name;
    RR_LIBMNT_FUNCS(RR_LIBMNT_LOAD)
#undef RR_LIBMNT_LOAD
    if (missing != NULL) {
        dlclose(h);
        rr_libmnt_table = (struct rr_libmnt){0};
        return rr_fail(err, ENOENT, "libmount (%s) has no %s", RR_LIBMOUNT_SONAME, missing);
    }
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
