#include "writeback/rules/rules.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "writeback/rules/embedded.h"
#include "writeback/names/glob.h"
#include "writeback/changeset/manifest.h"
#include "writeback/scan/merged.h"
#include "writeback/names/names.h"
#include "writeback/names/resolve.h"

static int refuse(struct wb_changeset *cs, const struct wb_change *c, const char *code,
                  const char *what, struct rr_error *err)
{
    return wb_note_add(&cs->refused, c->path, c->path_len, code, err, "%s", what);
}

static int check_git(struct wb_changeset *cs, const struct wb_change *c, struct rr_error *err)
{
    const char *slash = memchr(c->path, '/', c->path_len);
    size_t first = slash ? (size_t)(slash - c->path) : c->path_len;

    if (!wb_path_has_dotgit(c->path, c->path_len))
        return 0;
    if (wb_name_is_dotgit(c->path, first))
        return refuse(cs, c, "git", "touches .git (under it or replacing it)", err);
    return refuse(cs, c, "git", "nested .git (an embedded repository)", err);
}

static int check_globs(struct wb_changeset *cs, const struct wb_change *c,
                       const struct rr_writeback_policy *pol, struct rr_error *err)
{
    for (size_t i = 0; i < pol->protect.n; i++)
        if (wb_glob_match(pol->protect.v[i], c->path, c->path_len))
            return wb_note_add(&cs->refused, c->path, c->path_len, "protected", err,
                               "matches the protected glob %s", pol->protect.v[i]);
    for (size_t i = 0; i < pol->warn.n; i++)
        if (wb_glob_match(pol->warn.v[i], c->path, c->path_len))
            return wb_note_add(&cs->warned, c->path, c->path_len, "warn", err,
                               "matches the warn glob %s: review it closely (it can change "
                               "what git or CI runs)",
                               pol->warn.v[i]);
    return 0;
}

static int check_symlink(struct wb_scan *s, const struct wb_change *c, struct rr_error *err)
{
    enum wb_resolve res;

    /* apply checks TARGET's link against base.target, and the manifest can
     * carry only valid UTF-8 as it is: such a change could never apply. */
    if (c->base.type == WB_T_SYMLINK && !wb_json_text_exact(c->base.target, c->base.size) &&
        refuse(&s->cs, c, "symlink",
               "the checkout's symlink target is not valid UTF-8: an export cannot carry it",
               err) < 0)
        return -1;

    if (c->base.type == WB_T_DIR &&
        c->new.type == WB_T_SYMLINK &&refuse(&s->cs, c, "symlink-replaces-dir",
                                             "a symlink replaces the checkout's directory",
                                             err) < 0)
        return -1;
    if (c->new.type != WB_T_SYMLINK || c->kind == WB_MODE)
        return 0;
    if (wb_resolve_symlink(c->path, c->path_len, c->new.target, wb_merged_lookup, s, &res, err) < 0)
        return -1;
    if (res != WB_RES_INSIDE)
        return wb_note_add(&s->cs.refused, c->path, c->path_len, "symlink-escape", err,
                           "symlink target %s", wb_resolve_text(res));
    /* apply re-checks the target as text, ".." taking back the component
     * before it whatever that is (wb_rules_recheck): a target that climbs
     * through a checkout file ("README/../../x") or back out of a link it
     * followed ("sub/lnk/../../..") must be refused here, or an accepted
     * set would be refused at apply */
    if (wb_resolve_symlink(c->path, c->path_len, c->new.target, NULL, NULL, &res, err) < 0)
        return -1;
    if (res == WB_RES_INSIDE)
        return 0;
    return wb_note_add(&s->cs.refused, c->path, c->path_len, "symlink-escape", err,
                       "symlink target %s when read as text, as apply checks it",
                       wb_resolve_text(res));
}

/* Every directory above a changed path must be a directory in the merged
 * view: a change below a symlink would be written wherever it points. */
static int check_parents(struct wb_scan *s, const struct wb_change *c, size_t *ok_len,
                         const char **ok_path, struct rr_error *err)
{
    const char *slash = memrchr(c->path, '/', c->path_len);
    size_t plen = slash ? (size_t)(slash - c->path) : 0;

    if (plen == 0 || (*ok_path && plen == *ok_len && memcmp(*ok_path, c->path, plen) == 0))
        return 0;
    size_t pos = 0, n;
    const char *comp;

    while (wb_next_component(c->path, plen, &pos, &comp, &n)) {
        size_t end = (size_t)(comp - c->path) + n;
        struct wb_node node;
        if (wb_merged_lookup(s, c->path, end, &node, err) < 0)
            return -1;
        free(node.target);
        if (node.kind == WB_N_SYMLINK)
            return wb_note_add(&s->cs.refused, c->path, c->path_len, "parent-symlink", err,
                               "its parent %.*s is a symlink in the merged tree", (int)end,
                               c->path);
    }
    *ok_path = c->path;
    *ok_len = plen;
    return 0;
}

static int check_change(struct wb_scan *s, const struct wb_change *c, size_t *ok_len,
                        const char **ok_path, struct rr_error *err)
{
    if (check_git(&s->cs, c, err) < 0 || check_globs(&s->cs, c, s->pol, err) < 0 ||
        check_symlink(s, c, err) < 0 || check_parents(s, c, ok_len, ok_path, err) < 0)
        return -1;
    if (c->new.type != WB_T_NONE && wb_deny_match(s->deny, c->path, c->path_len))
        return refuse(&s->cs, c, "secret", "the path holds a --deny-content secret", err);
    return 0;
}

int wb_rules_run(struct wb_scan *s, struct rr_error *err)
{
    const char *ok_path = NULL;
    size_t ok_len = 0;

    if (s->cs.n > s->pol->max_files && wb_note_add(&s->cs.refused, NULL, 0, "files-cap", err,
                                                   "%zu changed paths, over the cap of %ju",
                                                   s->cs.n, (uintmax_t)s->pol->max_files) < 0)
        return -1;
    for (size_t i = 0; i < s->cs.n; i++)
        if (check_change(s, &s->cs.v[i], &ok_len, &ok_path, err) < 0)
            return -1;
    if (wb_rules_embedded(s, err) < 0)
        return -1;
    return wb_rules_collisions(s, err);
}

/* Whatever the rules above let through must pass what apply checks on the
 * loaded manifest too (wb_rules_recheck): a set diff and export accept is
 * never refused by apply for a reason the stage could see. The rules are
 * meant to refuse all of it first, with their own codes; this is the net
 * under them ("apply-recheck"). */
int wb_rules_apply_net(struct wb_scan *s, struct rr_error *err)
{
    struct rr_error why;

    if (wb_changeset_refused(&s->cs) || wb_rules_recheck(&s->cs, s->pol, &why) == 0)
        return 0;
    if (why.errnum != 0)
        return rr_fail(err, why.errnum, "%s", why.msg);
    return wb_note_add(&s->cs.refused, NULL, 0, "apply-recheck", err,
                       "apply would refuse the set: %s", why.msg);
}

int wb_vet(const struct wb_scan_input *in, struct wb_scan *out, struct rr_error *err)
{
    if (wb_scan_run(in, out, err) < 0 || wb_rules_run(out, err) < 0 ||
        wb_rules_apply_net(out, err) < 0)
        return -1;
    wb_notes_sort(&out->cs.refused);
    wb_notes_sort(&out->cs.warned);
    return 0;
}

int wb_rules_recheck(struct wb_changeset *cs, const struct rr_writeback_policy *pol,
                     struct rr_error *err)
{
    uint64_t total = 0;

    if (cs->n > pol->max_files)
        return rr_fail(err, 0, "%zu changes, over the cap of %ju", cs->n,
                       (uintmax_t)pol->max_files);
    for (size_t i = 0; i < cs->n; i++) {
        const struct wb_change *c = &cs->v[i];
        const char *why = wb_path_problem(c->path, c->path_len, pol);
        enum wb_resolve res = WB_RES_INSIDE;
        if (why == NULL && wb_path_has_dotgit(c->path, c->path_len))
            why = "touches .git";
        for (size_t g = 0; why == NULL && g < pol->protect.n; g++)
            if (wb_glob_match(pol->protect.v[g], c->path, c->path_len))
                why = "matches a protected glob";
        if (why == NULL && c->base.type == WB_T_DIR && c->new.type == WB_T_SYMLINK)
            why = "a symlink replaces a directory";
        if (why == NULL && c->new.type == WB_T_FILE &&
            (c->new.size > pol->max_file_bytes || (total += c->new.size) > pol->max_total_bytes))
            why = "over the size caps";
        if (why == NULL && c->new.type == WB_T_SYMLINK &&
            ((why = wb_target_problem(c->new.target, c->new.size, pol)) == NULL) &&
            wb_resolve_symlink(c->path, c->path_len, c->new.target, NULL, NULL, &res, err) < 0)
            return -1;
        if (why == NULL && res != WB_RES_INSIDE)
            why = wb_resolve_text(res);
        if (why != NULL)
            return rr_fail(err, 0, "%.*s: %s", (int)c->path_len, c->path, why);
    }
    return 0;
}
