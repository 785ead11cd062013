/* The credential: read once on the host, kept in one allocation, wiped on
 * free, and checked to be a single header-safe token. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "egress/egress.h"

void egress_secret_wipe(struct egress_secret *s)
{
    if (s->p != NULL) {
        explicit_bzero(s->p, s->n);
        free(s->p);
    }
    s->p = NULL;
    s->n = 0;
}

/* Visible ASCII only: a CR, LF or NUL in the secret would let it (or the
 * file it came from) split the injected header into two. */
static int check_secret(const char *p, size_t n, struct rr_error *err)
{
    if (n < EGRESS_SECRET_MIN || n > EGRESS_SECRET_MAX)
        return rr_fail(err, 0, "credential must be %d to %d bytes", EGRESS_SECRET_MIN,
                       EGRESS_SECRET_MAX);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)p[i] <= 0x20 || (unsigned char)p[i] >= 0x7f)
            return rr_fail(err, 0, "credential has a byte that is not visible ASCII");
    return 0;
}

static int keep(const char *p, size_t n, struct egress_secret *s, struct rr_error *err)
{
    if (check_secret(p, n, err) < 0)
        return -1;
    s->p = malloc(n + 1);
    if (s->p == NULL)
        return rr_fail(err, ENOMEM, "credential");
    memcpy(s->p, p, n);
    s->p[n] = '\0';
    s->n = n;
    return 0;
}

static int load_file(const char *file, struct egress_secret *s, struct rr_error *err)
{
    char buf[EGRESS_SECRET_MAX + 3];
    _cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    size_t n = 0;
    int r;

    if (fd < 0)
        return rr_fail(err, errno, "open credential file %s", file);
    while (n < sizeof(buf)) {
        ssize_t k = read(fd, buf + n, sizeof(buf) - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            explicit_bzero(buf, sizeof(buf));
            return rr_fail(err, errno, "read credential file %s", file);
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    /* One line: a final "\n" or "\r\n" is how editors and echo leave it. */
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n > 0 && buf[n - 1] == '\r')
        n--;
    r = keep(buf, n, s, err);
    explicit_bzero(buf, sizeof(buf));
    return r < 0 ? rr_wrap(err, "credential file %s", file) : 0;
}

static int load_env(const char *name, struct egress_secret *s, struct rr_error *err)
{
    char *v = getenv(name);

    if (v == NULL)
        return rr_fail(err, 0, "credential variable %s is not set", name);
    if (keep(v, strlen(v), s, err) < 0)
        return rr_wrap(err, "credential variable %s", name);
    /* getenv points into the block that /proc/PID/environ shows: wipe it
     * there, not only in our table. */
    explicit_bzero(v, strlen(v));
    unsetenv(name);
    return 0;
}

int egress_secret_load(const char *file, const char *env, struct egress_secret *s,
                       struct rr_error *err)
{
    s->p = NULL;
    s->n = 0;
    if ((file == NULL) == (env == NULL))
        return rr_fail(err, EINVAL, "credential: give exactly one of a file and a variable");
    return file != NULL ? load_file(file, s, err) : load_env(env, s, err);
}

int egress_harden_process(struct rr_error *err)
{
    struct rlimit none = {0, 0};

    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
        return rr_fail(err, errno, "prctl(PR_SET_DUMPABLE)");
    if (setrlimit(RLIMIT_CORE, &none) < 0)
        return rr_fail(err, errno, "setrlimit(RLIMIT_CORE)");
    return 0;
}
