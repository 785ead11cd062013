#include "runtime/confine/rlimits.h"

#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

static const char *label(int resource)
{
    static const struct {
        int r;
        const char *name;
    } names[] = {
        {RLIMIT_AS, "RLIMIT_AS"},           {RLIMIT_CORE, "RLIMIT_CORE"},
        {RLIMIT_CPU, "RLIMIT_CPU"},         {RLIMIT_DATA, "RLIMIT_DATA"},
        {RLIMIT_FSIZE, "RLIMIT_FSIZE"},     {RLIMIT_LOCKS, "RLIMIT_LOCKS"},
        {RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK"}, {RLIMIT_MSGQUEUE, "RLIMIT_MSGQUEUE"},
        {RLIMIT_NICE, "RLIMIT_NICE"},       {RLIMIT_NOFILE, "RLIMIT_NOFILE"},
        {RLIMIT_NPROC, "RLIMIT_NPROC"},     {RLIMIT_RSS, "RLIMIT_RSS"},
        {RLIMIT_RTPRIO, "RLIMIT_RTPRIO"},   {RLIMIT_RTTIME, "RLIMIT_RTTIME"},
        {RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING"}, {RLIMIT_STACK, "RLIMIT_STACK"},
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].r == resource)
            return names[i].name;
    return "an rlimit";
}

static const char *remedy(int resource)
{
    return resource == RLIMIT_NOFILE
               ? "raise it where revrun starts (`ulimit -Hn N` in a root shell, LimitNOFILE= in "
                 "a systemd unit, `--ulimit nofile=N:N` for a container)"
               : "raise it where revrun starts (`ulimit -H`, or Limit*= in a systemd unit)";
}

int rlimits_judge_caller(const struct profile *p, struct rr_error *err)
{
    struct rlimit own;

    if (getrlimit(RLIMIT_NOFILE, &own) < 0)
        return rr_fail(err, errno, "getrlimit RLIMIT_NOFILE");
    if (own.rlim_cur < own.rlim_max) {
        own.rlim_cur = own.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &own) < 0)
            return rr_fail(err, errno, "setrlimit RLIMIT_NOFILE to its hard limit");
    }
    if (own.rlim_max != RLIM_INFINITY && own.rlim_max < RLIMITS_REVRUN_NOFILE)
        return rr_fail(err, 0,
                       "RLIMIT_NOFILE is %llu here; revrun needs at least %d open files to "
                       "build a container: %s",
                       (unsigned long long)own.rlim_max, RLIMITS_REVRUN_NOFILE,
                       remedy(RLIMIT_NOFILE));
    for (size_t i = 0; i < p->n_rlimits; i++) {
        const struct rr_rlimit *r = &p->rlimits[i];
        struct rlimit cur;
        if (getrlimit(r->resource, &cur) < 0)
            return rr_fail(err, errno, "getrlimit %s", label(r->resource));
        if (cur.rlim_max != RLIM_INFINITY && (r->hard == RLIM_INFINITY || r->hard > cur.rlim_max))
            return rr_fail(err, 0,
                           "process.rlimits: %s hard %llu is above this caller's hard limit "
                           "(%llu), which the container cannot raise: %s, or lower it in the "
                           "config",
                           label(r->resource), (unsigned long long)r->hard,
                           (unsigned long long)cur.rlim_max, remedy(r->resource));
    }
    return 0;
}
