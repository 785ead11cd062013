/* The secrets git keeps in a configuration file, read from its text alone
 * (no file system): the entries as git parses them, and which of them hand
 * whoever reads the file a credential. lower_credentials.c walks the files
 * git reads (includes, submodules, worktrees) and asks this module about
 * each one. */
#ifndef REVRUN_GIT_CONFIG_SECRETS_H
#define REVRUN_GIT_CONFIG_SECRETS_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/confine/git_config_parse.h"

/* Where a path value may lead into what the agent reads: the checkout's
 * place inside and on the host, its main git directory's inside (NULL when
 * not shown) and on the host, and the agent's HOME (NULL when unset). A
 * config may have been written for either side (the operator's own
 * `store --file=/home/op/repo/.git/creds` names the host's path), so both
 * count. A NULL view or field maps nothing. */
struct lower_view {
    const char *checkout_inside;
    const char *common_inside;
    const char *home;
    const char *checkout_host;
    const char *common_host;
};

/* Does this entry (section from cur) hold a secret? what[cap] then names
 * it and its key (never its value): a password, token or secret by its
 * key's name, a username shaped like a password, or a cookie or key file
 * that v shows inside the checkout or its main git directory. */
bool lgc_entry_secret(const struct lgc_cursor *cur,
                             const struct git_config_entry *e, const char *value,
                             const struct lower_view *v, char *what, size_t cap);

/* Does this git config text hold a credential? The first one: *line
 * (1-based) and what[cap] (a description, never the secret) say where. */
bool lgc_has_credential(const char *text, size_t len, const struct lower_view *v,
                               unsigned *line, char *what, size_t cap);

#endif
