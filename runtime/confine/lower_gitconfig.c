/* Reading git configuration text as git does, for lower_credentials.c: a
 * credential in it (git_config_has_credential) and the files it includes
 * (git_config_next_include). Pure text: no file is opened here. */
#include "runtime/confine/lower_credentials.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* A user part that is a token: the forges' token prefixes, or something
 * as long as one (an organisation or account name is short). */
static bool token_like(const char *user, size_t n)
{
    static const char *const prefixes[] = {"ghp_", "gho_", "ghs_", "ghu_", "ghr_",
                                           "github_pat_", "glpat-", "x-access-token"};

    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (n >= strlen(prefixes[i]) && strncasecmp(user, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return n >= 32;
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

/* credential.helper: an inline script that prints a password, or the store
 * helper keeping its plaintext file at a relative path (in the checkout). */
static const char *helper_secret(const char *value)
{
    const char *file;

    while (*value == ' ' || *value == '\t')
        value++;
    if (strcasestr(value, "password=") != NULL)
        return "a credential helper that hands out a password";
    if (strncmp(value, "store", 5) == 0 && (file = strstr(value, "--file")) != NULL) {
        file += 6;
        while (*file == ' ' || *file == '\t' || *file == '=')
            file++;
        if (*file != '/' && *file != '~' && *file != '$')
            return "a credential store file inside the checkout";
    }
    return NULL;
}

bool git_config_has_credential(const char *text, size_t len, unsigned *line, const char **what)
{
    const char *p = text, *end = text + len, *next;
    char *buf = malloc(len + 1);
    unsigned at = 1, n;
    bool found = false;

    if (buf == NULL) { /* fail closed: the caller refuses */
        *line = 0;
        *what = "a configuration too large to check";
        return true;
    }
    while (p < end && !found) {
        char *key, *value;
        logical_line(p, end, buf, len + 1, &next, &n);
        *line = at;
        if (url_has_secret(buf)) {
            *what = "a URL with a user or password in it";
            found = true;
        }
        split_key(buf, &key, &value);
        if (!found && strcmp(key, "extraheader") == 0) {
            *what = "an http.extraheader (actions/checkout persists the job's token there)";
            found = true;
        }
        if (!found && strcmp(key, "helper") == 0 && (*what = helper_secret(value)) != NULL)
            found = true;
        at += n;
        p = next;
    }
    free(buf);
    return found;
}

/* The section name of a header, lowercase, up to a space, quote, dot or
 * "]": "include" for [include], "includeif" for [includeIf "gitdir:x"]. */
static void section_base(const char *p, const char *end, char *out, size_t cap)
{
    size_t o = 0;

    while (p < end && (isalnum((unsigned char)*p) || *p == '-') && o + 1 < cap)
        out[o++] = (char)tolower((unsigned char)*p++);
    out[o] = '\0';
}

int git_config_next_include(const char *text, size_t len, struct git_include_cursor *cur,
                            unsigned *line, char *out, size_t cap)
{
    const char *p = text + cur->pos, *end = text + len;

    if (cur->line == 0)
        cur->line = 1;
    while (p < end) {
        char key[16];
        size_t k = 0, o = 0, spaces = 0;
        bool quote = false, over = false;
        unsigned key_line;

        if (*p == '\n') {
            cur->line++;
            p++;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (*p == '#' || *p == ';') {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        if (*p == '[') {
            const char *close = p;
            char base[16];
            while (close < end && *close != ']' && *close != '\n')
                close++;
            if (close >= end || *close != ']') { /* git refuses the file; so is the line */
                p = close;
                continue;
            }
            section_base(p + 1, close, base, sizeof(base));
            cur->in_include = strcmp(base, "include") == 0 || strcmp(base, "includeif") == 0;
            p = close + 1; /* a key may follow on the header's line */
            continue;
        }
        if (!isalpha((unsigned char)*p)) {
            while (p < end && *p != '\n')
                p++;
            continue;
        }
        key_line = cur->line;
        while (p < end && (isalnum((unsigned char)*p) || *p == '-')) {
            if (k + 1 < sizeof(key))
                key[k++] = (char)tolower((unsigned char)*p);
            p++;
        }
        key[k] = '\0';
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end || *p != '=')
            continue; /* a bare key (true), or not one: the rest of the line is skipped above */
        p++;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        /* the value as git's parse_value makes it */
        while (p < end) {
            char c = *p;
            if (c == '\n' && !quote)
                break;
            p++;
            if (c == '\n') /* a newline inside quotes: git refuses the file */
                break;
            if (c == '\\' && p < end) {
                c = *p++;
                if (c == '\n') {
                    cur->line++;
                    continue;
                }
                c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
            } else if (c == '"') {
                quote = !quote;
                continue;
            } else if ((c == ';' || c == '#') && !quote) {
                while (p < end && *p != '\n')
                    p++;
                break;
            } else if (isspace((unsigned char)c) && !quote) {
                if (o > 0)
                    spaces++;
                continue;
            }
            for (; spaces > 0; spaces--)
                if (o + 1 < cap)
                    out[o++] = ' ';
                else
                    over = true;
            if (o + 1 < cap)
                out[o++] = c;
            else
                over = true;
        }
        out[o] = '\0';
        if (cur->in_include && strcmp(key, "path") == 0) {
            cur->pos = (size_t)(p - text);
            *line = key_line;
            return over ? -1 : 1;
        }
    }
    cur->pos = len;
    return 0;
}
