/* A credential in the checkout's .git/config (see lower_credentials.h). */
#include "runtime/lower_credentials.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fsutil.h"

#define CONFIG_MAX ((size_t)4 << 20)

static bool key_is(const char *s, const char *end, const char *key)
{
    size_t n = strlen(key);

    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if ((size_t)(end - s) < n || strncasecmp(s, key, n) != 0)
        return false;
    for (s += n; s < end && (*s == ' ' || *s == '\t'); s++)
        ;
    return s == end || *s == '=';
}

/* A URL's userinfo: for http(s) any user part (a token is often the user),
 * elsewhere only user:password (ssh://git@host is an ordinary remote). */
static bool url_has_secret(const char *s, const char *end)
{
    for (const char *p = s; p + 3 <= end; p++) {
        const char *scheme = p, *q;
        bool http, colon = false;
        if (memcmp(p, "://", 3) != 0)
            continue;
        while (scheme > s && (isalnum((unsigned char)scheme[-1]) || scheme[-1] == '+' ||
                              scheme[-1] == '.' || scheme[-1] == '-'))
            scheme--;
        http = (size_t)(p - scheme) >= 4 && strncasecmp(scheme, "http", 4) == 0;
        for (q = p + 3; q < end && !strchr("/ \t\"?#", *q); q++) {
            if (*q == ':')
                colon = true;
            if (*q == '@')
                return http || colon;
        }
    }
    return false;
}

bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what)
{
    const char *p = text, *end = text + len;

    for (*line = 1; p < end; (*line)++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
        const char *eq = memchr(p, '=', (size_t)(eol - p));
        if (eq != NULL && key_is(p, eq, "extraheader")) {
            *what = "an http.extraheader (actions/checkout persists the job's token there)";
            return true;
        }
        if (url_has_secret(p, eol)) {
            *what = "a URL with a user or password in it";
            return true;
        }
        p = eol + (nl != NULL);
    }
    return false;
}

int lower_refuse_credentials(const char *lower, struct rr_error *err)
{
    _cleanup_close_ int root = open(lower, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    _cleanup_close_ int fd = -1;
    _cleanup_free_ char *buf = NULL;
    struct stat st;
    const char *what;
    unsigned line;
    size_t got = 0;

    if (root < 0)
        return rr_fail(err, errno, "revrun.lower: %s", lower);
    fd = rr_open_in_root(root, ".git/config", O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, true);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                   ? 0
                   : rr_fail(err, errno, "revrun.lower: %s/.git/config", lower);
    if (fstat(fd, &st) < 0)
        return rr_fail(err, errno, "revrun.lower: %s/.git/config", lower);
    if (!S_ISREG(st.st_mode))
        return 0;
    if ((uint64_t)st.st_size > CONFIG_MAX)
        return rr_fail(err, EFBIG, "revrun.lower: %s/.git/config is too large to check", lower);
    if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
        return rr_fail(err, ENOMEM, "revrun.lower");
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return rr_fail(err, errno, "revrun.lower: %s/.git/config", lower);
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (!git_config_has_credential(buf, got, &line, &what))
        return 0;
    return rr_fail(err, EACCES,
                   "revrun.lower: %s/.git/config line %u holds %s, which the agent could read; "
                   "check out without persisting credentials (actions/checkout: "
                   "persist-credentials: false) or remove it (git config --unset-all KEY)",
                   lower, line, what);
}
