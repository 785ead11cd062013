#include "writeback/changeset/origin.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/state.h"
#include "common/cleanup.h"
#include "common/escape.h"

int wb_origin_set_review(struct wb_origin *o, const char *id, struct rr_error *err)
{
    if (!rr_id_valid(id))
        return rr_fail(err, EINVAL, "review id: not an ID");
    free(o->review);
    if ((o->review = strdup(id)) == NULL)
        return rr_fail(err, ENOMEM, "review id");
    return 0;
}

/* The lines of s escaped one by one into out (max bytes with the NUL),
 * trailing blank lines dropped; a line that does not fit is cut with
 * rr_escape's marker and ends the text. */
static void escape_lines(const char *s, size_t len, char *out, size_t max)
{
    size_t used = 0;

    while (len > 0 && memchr(" \t\r\n", s[len - 1], 4) != NULL)
        len--;
    out[0] = '\0';
    for (size_t pos = 0; pos < len && used + 1 < max;) {
        const char *nl = memchr(s + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (s + pos)) : len - pos;
        if (pos > 0)
            out[used++] = '\n';
        rr_escape(s + pos, l, out + used, max - used);
        used += strlen(out + used);
        pos += l + 1;
    }
}

static int keep_commit(struct wb_origin *o, char *subject, char *body, struct rr_error *err)
{
    if (subject == NULL || body == NULL) {
        free(subject);
        free(body);
        return rr_fail(err, ENOMEM, "commits");
    }
    if (o->n_commits == WB_ORIGIN_COMMITS) {
        free(subject);
        free(body);
        return rr_fail(err, E2BIG, "more than %u commits", WB_ORIGIN_COMMITS);
    }
    o->commits[o->n_commits++] = (struct wb_agent_commit){subject, body};
    return 0;
}

int wb_origin_add_commit(struct wb_origin *o, const char *subject, size_t slen, const char *body,
                         size_t blen, struct rr_error *err)
{
    char *s = malloc(WB_SUBJECT_TEXT_MAX + 1), *b = malloc(WB_BODY_TEXT_MAX + 1);

    if (s != NULL)
        rr_escape(subject, slen, s, WB_SUBJECT_TEXT_MAX + 1);
    if (b != NULL)
        escape_lines(body, blen, b, WB_BODY_TEXT_MAX + 1);
    return keep_commit(o, s, b, err);
}

int wb_origin_add_escaped(struct wb_origin *o, const char *subject, const char *body,
                          struct rr_error *err)
{
    return keep_commit(o, strdup(subject), strdup(body), err);
}

/* One line: escaping it changes nothing but its backslashes (doubled). */
static bool line_ok(const char *s, size_t len)
{
    _cleanup_free_ char *e = malloc(rr_escape_size(len));
    size_t j = 0;

    if (e == NULL)
        return false;
    rr_escape(s, len, e, rr_escape_size(len));
    for (size_t i = 0; i < len; i++, j++) {
        if (e[j] != s[i])
            return false;
        if (s[i] == '\\' && e[++j] != '\\')
            return false;
    }
    return e[j] == '\0';
}

bool wb_origin_text_ok(const char *s, size_t len, bool multiline, size_t max)
{
    if (len > max || memchr(s, '\0', len) != NULL)
        return false;
    for (size_t pos = 0; pos <= len;) {
        const char *nl = memchr(s + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (s + pos)) : len - pos;
        if ((nl && !multiline) || !line_ok(s + pos, l))
            return false;
        pos += l + 1;
    }
    return true;
}

int wb_origin_copy(struct wb_origin *dst, const struct wb_origin *src, struct rr_error *err)
{
    dst->base = src->base;
    if (src->review && wb_origin_set_review(dst, src->review, err) < 0)
        return -1;
    for (size_t i = 0; i < src->n_commits; i++)
        if (wb_origin_add_escaped(dst, src->commits[i].subject, src->commits[i].body, err) < 0)
            return -1;
    return 0;
}

void wb_origin_free(struct wb_origin *o)
{
    for (size_t i = 0; i < o->n_commits; i++) {
        free(o->commits[i].subject);
        free(o->commits[i].body);
    }
    free(o->review);
    memset(o, 0, sizeof(*o));
}
