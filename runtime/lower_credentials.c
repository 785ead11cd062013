/* A credential in the checkout's .git/config (see lower_credentials.h). */
#include "runtime/lower_credentials.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
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
    _cleanup_close_ int git = -1;
    _cleanup_free_ char *text = NULL;
    struct rr_error why;
    const char *what;
    unsigned line;
    size_t len;

    if (root < 0)
        return rr_fail(err, errno, "revrun.lower: %s", lower);
    git = rr_open_in_root(root, ".git", O_PATH | O_DIRECTORY | O_CLOEXEC, true);
    if (git < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                   ? 0 /* no repository here, or .git is a file or a symlink */
                   : rr_fail(err, errno, "revrun.lower: %s/.git", lower);
    if (rr_read_file(git, "config", CONFIG_MAX, &text, &len, &why) < 0) {
        if (why.errnum == ENOENT || why.errnum == ELOOP || why.errnum == EINVAL)
            return 0; /* none, a symlink, not a regular file */
        return rr_fail(err, why.errnum, "revrun.lower: %s/.git/config (%s)", lower, why.msg);
    }
    if (!git_config_has_credential(text, len, &line, &what))
        return 0;
    return rr_fail(err, EACCES,
                   "revrun.lower: %s/.git/config line %u holds %s, which the agent could read; "
                   "check out without persisting credentials (actions/checkout: "
                   "persist-credentials: false) or remove it (git config --unset-all KEY)",
                   lower, line, what);
}
