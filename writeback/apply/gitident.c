/* The operator's git identity outside a repository, for the mail of
 * `export --format mbox` (apply --commit asks the repository). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/apply/gitcommit.h"
#include "writeback/git/git2.h"

/* 1 and a new non-empty string, 0 when unset (or empty), -1. */
static int get(const struct wb_git2 *g2, git_config *cfg, const char *key, char **out,
               struct rr_error *err)
{
    git_buf buf = {0};
    int r = g2->git_config_get_string_buf(&buf, cfg, key);

    if (r == GIT_ENOTFOUND)
        return 0;
    if (r < 0)
        return rr_fail(err, EIO, "git config %s: %s", key, wb_git2_error(g2));
    *out = strdup(buf.ptr ? buf.ptr : "");
    g2->git_buf_dispose(&buf);
    if (*out == NULL)
        return rr_fail(err, ENOMEM, "git config %s", key);
    return (*out)[0] != '\0';
}

int wb_ident_default(char **name, char **email, struct rr_error *err)
{
    const struct wb_git2 *g2 = wb_git2_acquire_operator(err);
    git_config *cfg = NULL;
    int r;

    *name = *email = NULL;
    if (g2 == NULL)
        return -1;
    if (g2->git_config_open_default(&cfg) < 0)
        r = rr_fail(err, EIO, "git config: %s", wb_git2_error(g2));
    else if ((r = get(g2, cfg, "user.name", name, err)) == 1)
        r = get(g2, cfg, "user.email", email, err);
    if (r != 1) {
        free(*name);
        free(*email);
        *name = *email = NULL;
    }
    g2->git_config_free(cfg);
    wb_git2_release(g2);
    return r;
}
