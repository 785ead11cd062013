#include "writeback/git/gitinfo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int keep(struct wb_text *t, const char *s, size_t len, bool slash, struct rr_error *err)
{
    if ((t->s = malloc(len + 2)) == NULL)
        return rr_fail(err, ENOMEM, "git summary");
    memcpy(t->s, s, len);
    if (slash)
        t->s[len++] = '/';
    t->s[len] = '\0';
    t->len = len;
    return 0;
}

int wb_gitinfo_ignore(struct wb_gitinfo *gi, const char *path, size_t len, bool dir,
                      uint64_t files, struct rr_error *err)
{
    gi->ignored += dir ? files : 1;
    gi->ignored_names++;
    if (gi->n_ignored_first == WB_IGNORED_SHOWN)
        return 0;
    if (keep(&gi->ignored_first[gi->n_ignored_first], path, len, dir, err) < 0)
        return -1;
    gi->ignored_first_files[gi->n_ignored_first++] = dir ? files : 1;
    return 0;
}

int wb_gitinfo_commit(struct wb_gitinfo *gi, const char *subject, size_t len, const char *body,
                      size_t blen, struct rr_error *err)
{
    size_t i = gi->n_commits;

    if (i == WB_COMMITS_SHOWN) {
        gi->commits_more = true;
        return 0;
    }
    if (keep(&gi->commits[i], subject, len > WB_SUBJECT_MAX ? WB_SUBJECT_MAX : len, false,
             err) < 0)
        return -1;
    if (body == NULL)
        body = "", blen = 0;
    if (keep(&gi->bodies[i], body, blen > WB_BODY_MAX ? WB_BODY_MAX : blen, false, err) < 0) {
        free(gi->commits[i].s);
        return -1;
    }
    gi->n_commits++;
    return 0;
}

void wb_gitinfo_free(struct wb_gitinfo *gi)
{
    for (size_t i = 0; i < gi->n_ignored_first; i++)
        free(gi->ignored_first[i].s);
    for (size_t i = 0; i < gi->n_commits; i++) {
        free(gi->commits[i].s);
        free(gi->bodies[i].s);
    }
    *gi = (struct wb_gitinfo){0};
}
