/* The secrets git keeps in a configuration (see git_config_secrets.h). */
#include "runtime/confine/git_config_secrets.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/escape.h"

/* A logical line as git reads it: continued lines joined, quotes and the
 * backslashes of escapes dropped (so "https://user:tok"@host is seen whole),
 * a section header at its start skipped (a key may follow it on the line). */
static size_t logical_line(const char *p, const char *end, char *out, size_t cap,
                           const char **next, unsigned *lines)
{
    size_t o = 0;

    *lines = 1;
    while (p < end && *p != '\n') {
        if (*p == '\\' && p + 1 < end && p[1] == '\n') { /* continued */
            p += 2;
            (*lines)++;
            continue;
        }
        if (*p == '\\' && p + 1 < end) { /* an escape: keep what it stands for */
            p++;
        } else if (*p == '"') {
            p++;
            continue;
        }
        if (o + 1 < cap)
            out[o++] = *p;
        p++;
    }
    *next = p < end ? p + 1 : end;
    out[o] = '\0';
    return o;
}

/* The key of "key = value" (or a bare key), lowercase, after an optional
 * [section] at the start; *value points after the '=' (or at ""). */
static void split_key(char *line, char **key, char **value)
{
    char *p = line, *k, *e;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '[' && (e = strchr(p, ']')) != NULL)
        p = e + 1;
    while (*p == ' ' || *p == '\t')
        p++;
    k = p;
    while (*p != '\0' && *p != '=' && *p != ' ' && *p != '\t')
        p++;
    e = p;
    while (*p == ' ' || *p == '\t')
        p++;
    *value = *p == '=' ? p + 1 : p + strlen(p);
    *e = '\0';
    for (char *c = k; *c != '\0'; c++)
        *c = (char)tolower((unsigned char)*c);
    *key = k;
}

/* The forges' token prefixes: a value starting so is a token. */
static bool token_prefixed(const char *s, size_t n)
{
    static const char *const prefixes[] = {"ghp_", "gho_", "ghs_", "ghu_",  "ghr_",
                                           "github_pat_", "glpat-", "glptt-", "gldt-"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (n >= strlen(prefixes[i]) && strncasecmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* A user part that is a token: the forges' token prefixes, or something
 * as long as one (an organisation or account name is short). */
static bool token_like(const char *user, size_t n)
{
    return token_prefixed(user, n) || (n >= 14 && strncasecmp(user, "x-access-token", 14) == 0) ||
           n >= 32;
}

/* A URL's userinfo holding a secret: user:password anywhere, or, for
 * http(s), a user part that is a token (https://org@dev.azure.com and
 * ssh://git@host are ordinary remotes). */
static bool url_has_secret(const char *s)
{
    for (const char *p = strstr(s, "://"); p != NULL; p = strstr(p + 3, "://")) {
        const char *scheme = p, *q;
        bool http, colon = false;
        while (scheme > s && (isalnum((unsigned char)scheme[-1]) || scheme[-1] == '+' ||
                              scheme[-1] == '.' || scheme[-1] == '-'))
            scheme--;
        http = (size_t)(p - scheme) >= 4 && strncasecmp(scheme, "http", 4) == 0;
        for (q = p + 3; *q != '\0' && !strchr("/ \t?#", *q); q++) {
            if (*q == ':')
                colon = true;
            if (*q == '@')
                return colon || (http && token_like(p + 3, (size_t)(q - p - 3)));
        }
    }
    return false;
}

/* credential.helper, read line by line (any section): an inline script
 * that prints a password. Where its files lead is judged by entry_kind,
 * which knows the section and the view. */
static const char *helper_secret(const char *value)
{
    return strcasestr(value, "password=") != NULL
               ? "a credential helper that hands out a password"
               : NULL;
}

/* ---- entries: by their key ---- */

/* n[0..len) holds word, compared without case */
static bool span_has(const char *n, size_t len, const char *word)
{
    size_t w = strlen(word);

    for (size_t i = 0; i + w <= len; i++)
        if (strncasecmp(n + i, word, w) == 0)
            return true;
    return false;
}

static bool span_ends(const char *n, size_t len, const char *word)
{
    size_t w = strlen(word);

    return len >= w && strncasecmp(n + len - w, word, w) == 0;
}

static bool span_is(const char *n, size_t len, const char *word)
{
    return len == strlen(word) && strncasecmp(n, word, len) == 0;
}

/* A key whose name says its value is a secret (sendemail.smtpPass,
 * imap.pass, hub.oauthtoken, gitlab.token, any *password*, *secret*):
 * what it holds, or NULL. */
static const char *named_secret(const char *n, size_t len)
{
    if (span_ends(n, len, "passwordprotected"))
        return NULL; /* http.sslCertPasswordProtected and the proxy's: booleans */
    if (span_ends(n, len, "token"))
        return "a token";
    if (span_has(n, len, "password") || span_has(n, len, "passwd") ||
        (span_ends(n, len, "pass") && !span_ends(n, len, "bypass")))
        return "a password";
    if (span_has(n, len, "secret"))
        return "a secret";
    if (span_ends(n, len, "apikey"))
        return "an API key";
    return NULL;
}

/* credential.<url>.username holding what is no user name: user:password,
 * a forge's token (a token works as the user part), or something as long
 * as one with no '@' or blank (an e-mail address is a user name). */
static bool password_shaped(const char *v)
{
    size_t n = strlen(v);

    if (strchr(v, ':') != NULL || token_prefixed(v, n))
        return true;
    return n >= 32 && strpbrk(v, "@ \t") == NULL;
}

/* below: path is dir or inside it ("/src" holds "/src" and "/src/x") */
static bool below(const char *path, const char *dir)
{
    size_t k;

    if (dir == NULL || dir[0] != '/')
        return false;
    k = strlen(dir);
    while (k > 1 && dir[k - 1] == '/')
        k--;
    if (k == 1)
        return true; /* the checkout is the agent's "/" */
    return strncmp(path, dir, k) == 0 && (path[k] == '\0' || path[k] == '/');
}

/* A path git hands to curl (http.cookieFile, http.sslKey): does it lead
 * into the checkout or its main git directory, as the agent sees them? A
 * relative one is relative to git's working directory, in the checkout;
 * one with ".." in it cannot be told, so it counts as inside. value is
 * not empty. */
static bool path_inside(const char *value, bool over, const struct lower_view *v)
{
    char abs[PATH_MAX];

    if (over)
        return true; /* longer than a path: cannot be told */
    if (strncmp(value, "%(prefix)/", 10) == 0)
        return false; /* git's own install, in the container */
    if (value[0] == '~') {
        if (value[1] != '/' || v == NULL || v->home == NULL)
            return false; /* another user's home, or none to expand */
        if ((size_t)snprintf(abs, sizeof(abs), "%s%s", v->home, value + 1) >= sizeof(abs))
            return true;
        value = abs;
    }
    if (value[0] != '/')
        return true;
    for (const char *p = strstr(value, "/.."); p != NULL; p = strstr(p + 1, "/.."))
        if (p[3] == '/' || p[3] == '\0')
            return true;
    return v != NULL && (below(value, v->checkout_inside) || below(value, v->common_inside) ||
                         below(value, v->checkout_host) || below(value, v->common_host));
}

/* The next word of a helper's command line (blanks and the shell's
 * punctuation between words), copied to out; NULL at the end. */
static const char *next_word(const char *p, char *out, size_t cap, bool *over)
{
    size_t n = 0;

    while (*p != '\0' && strchr(" \t;|&()<>'\"`{}", *p) != NULL)
        p++;
    if (*p == '\0')
        return NULL;
    *over = false;
    for (; *p != '\0' && strchr(" \t;|&()<>'\"`{}", *p) == NULL; p++) {
        if (n + 1 < cap)
            out[n++] = *p;
        else
            *over = true;
    }
    out[n] = '\0';
    return p;
}

/* credential.helper naming a file inside what the agent reads: the store
 * helper's --file (git's own plaintext password file), or, in any other
 * helper's command line after its program, an argument that is a path
 * (absolute, ~/, or relative starting with '.': `!cat /src/.git/token`,
 * `!f() { cat .git/creds; }; f`; "--opt=PATH" judged by its PATH; a URL or
 * $VAR is not judged). The
 * program itself may lie in the checkout: the agent reads a program, not a
 * secret. Without --file the store helper keeps ~/.git-credentials, which
 * path_inside judges as the agent's HOME would show it. */
static bool helper_file_inside(const char *value, const struct lower_view *v)
{
    char word[PATH_MAX];
    const char *p = value, *w;
    bool over = false, first = true, store = false, file_next = false;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '!')
        p++;
    while ((p = next_word(p, word, sizeof(word), &over)) != NULL) {
        w = word;
        if (first) {
            first = false;
            store = strcmp(word, "store") == 0;
            continue;
        }
        if (file_next) {
            file_next = false;
            if (path_inside(w, over, v))
                return true;
            continue;
        }
        if (store && strcmp(w, "--file") == 0) {
            file_next = true;
            continue;
        }
        if (w[0] == '-') { /* an option: only its "=PATH" may be a path */
            if ((w = strchr(word, '=')) == NULL)
                continue;
            w++;
        }
        /* a relative one only when it says it is a path ("./x", ".git/x",
         * "../x"): `pass show git/github` names a password-store entry */
        if (w[0] == '\0' || strchr(w, '/') == NULL || strstr(w, "://") != NULL ||
            (w[0] != '/' && w[0] != '~' && w[0] != '.'))
            continue;
        if (path_inside(w, over, v))
            return true;
    }
    return false;
}

/* section[.subsection].name for the message: the subsection escaped, and
 * "<url>" when it carries a user or password itself. */
static void key_text(const struct lgc_cursor *cur, const struct git_config_entry *e,
                     char *out, size_t cap)
{
    char sub[sizeof(cur->subsection) * 4 + 16] = "";
    char name[64];
    size_t n = e->name_len < sizeof(name) - 1 ? e->name_len : sizeof(name) - 1;

    for (size_t i = 0; i < n; i++)
        name[i] = (char)tolower((unsigned char)e->name[i]);
    name[n] = '\0';
    if (cur->subsection[0] != '\0' && url_has_secret(cur->subsection))
        snprintf(sub, sizeof(sub), ".<url>");
    else if (cur->subsection[0] != '\0') {
        sub[0] = '.';
        rr_escape(cur->subsection, strlen(cur->subsection), sub + 1, sizeof(sub) - 1);
    }
    snprintf(out, cap, "%.*s%s.%s%s", cur->section != NULL ? (int)cur->section_len : 1,
             cur->section != NULL ? cur->section : "?", sub, name,
             e->name_len > n ? "..." : "");
}

/* What this entry holds, by its section and key; NULL: nothing. */
static const char *entry_kind(const struct lgc_cursor *cur,
                              const struct git_config_entry *e, const char *value,
                              const struct lower_view *v)
{
    const char *kind;

    if (!e->has_value || value[0] == '\0')
        return NULL;
    if ((kind = named_secret(e->name, e->name_len)) != NULL)
        return kind;
    if (lgc_in_section(cur, "credential") && span_is(e->name, e->name_len, "username") &&
        password_shaped(value))
        return "a username shaped like a password or token";
    if (lgc_in_section(cur, "credential") && span_is(e->name, e->name_len, "helper") &&
        helper_file_inside(value, v))
        return "a credential helper reading a file inside the checkout";
    if (lgc_in_section(cur, "http") && span_is(e->name, e->name_len, "cookiefile") &&
        path_inside(value, e->over, v))
        return "a cookie file inside the checkout";
    if (lgc_in_section(cur, "http") && span_is(e->name, e->name_len, "sslkey") &&
        path_inside(value, e->over, v))
        return "a private key file inside the checkout";
    return NULL;
}

bool lgc_entry_secret(const struct lgc_cursor *cur,
                             const struct git_config_entry *e, const char *value,
                             const struct lower_view *v, char *what, size_t cap)
{
    const char *kind = entry_kind(cur, e, value, v);
    char key[1024];

    if (kind == NULL)
        return false;
    key_text(cur, e, key, sizeof(key));
    snprintf(what, cap, "%s (git config key %s)", kind, key);
    return true;
}

/* The first entry holding a secret: its line, or 0. */
static unsigned first_secret_entry(const char *text, size_t len, const struct lower_view *v,
                                   char *what, size_t cap)
{
    struct lgc_cursor cur = {0};
    struct git_config_entry e;
    char *value = malloc(PATH_MAX * 2);

    if (value == NULL) { /* fail closed: the caller refuses */
        snprintf(what, cap, "a configuration too large to check");
        return 1;
    }
    while (lgc_next(text, len, &cur, &e, value, PATH_MAX * 2) > 0)
        if (lgc_entry_secret(&cur, &e, value, v, what, cap)) {
            free(value);
            return e.line;
        }
    free(value);
    return 0;
}

/* ---- lines: a URL's userinfo, an extraheader, an inline helper ---- */

static unsigned first_secret_line(const char *text, size_t len, char *what, size_t cap)
{
    const char *p = text, *end = text + len, *next, *found = NULL;
    char *buf = malloc(len + 1);
    unsigned at = 1, n;

    if (buf == NULL) {
        snprintf(what, cap, "a configuration too large to check");
        return 1;
    }
    while (p < end && found == NULL) {
        char *key, *value;
        logical_line(p, end, buf, len + 1, &next, &n);
        if (url_has_secret(buf))
            found = "a URL with a user or password in it";
        split_key(buf, &key, &value);
        if (found == NULL && strcmp(key, "extraheader") == 0)
            found = "an http.extraheader (actions/checkout persists the job's token there)";
        if (found == NULL && strcmp(key, "helper") == 0)
            found = helper_secret(value);
        if (found == NULL)
            at += n;
        p = next;
    }
    free(buf);
    if (found != NULL)
        snprintf(what, cap, "%s", found);
    return found != NULL ? at : 0;
}

bool lgc_has_credential(const char *text, size_t len, const struct lower_view *v,
                               unsigned *line, char *what, size_t cap)
{
    char by_key[512];
    unsigned l = first_secret_line(text, len, what, cap);
    unsigned k = first_secret_entry(text, len, v, by_key, sizeof(by_key));

    if (k != 0 && (l == 0 || k < l)) {
        snprintf(what, cap, "%s", by_key);
        l = k;
    }
    *line = l;
    return l != 0;
}
