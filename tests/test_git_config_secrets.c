/* runtime/confine/git_config_parse.c and git_config_secrets.c: git config
 * entries as git reads them, and which keys hold a secret. */
#include <stdio.h>
#include <string.h>

#include "runtime/confine/git_config_secrets.h"
#include "tests/tap.h"

#define SECRET "s3cr3t-VALUE-never-shown-0123456789"

static const struct lower_view view = {.checkout_inside = "/src",
                                       .common_inside = "/repos/main/.git",
                                       .home = "/home/agent",
                                       .checkout_host = "/home/op/repo",
                                       .common_host = "/home/op/main/.git"};

/* The config text's first secret: its line (0: none) and what it says. */
static unsigned judged(const char *text, const struct lower_view *v, char *what, size_t cap)
{
    unsigned line = 0;

    what[0] = '\0';
    if (!lgc_has_credential(text, strlen(text), v, &line, what, cap))
        return 0;
    if (strstr(what, SECRET) != NULL) {
        tap_note("the message shows the value: %s", what);
        return 0;
    }
    return line;
}

/* Refused at line want, what naming want_what. */
static bool refused(const char *text, unsigned want, const char *want_what)
{
    char what[600];
    unsigned line = judged(text, &view, what, sizeof(what));

    if (line != want || strstr(what, want_what) == NULL)
        tap_note("line %u (wanted %u): %s", line, want, what);
    return line == want && strstr(what, want_what) != NULL;
}

static bool passed(const char *text)
{
    char what[600];
    unsigned line = judged(text, &view, what, sizeof(what));

    if (line != 0)
        tap_note("refused at line %u: %s", line, what);
    return line == 0;
}

TEST(passwords_tokens_and_secrets_by_their_key)
{
    CHECK(refused("[sendemail]\n\tsmtpPass = " SECRET "\n", 2,
                  "a password (git config key sendemail.smtppass)"));
    CHECK(refused("[imap]\n\tpass = " SECRET "\n", 2, "a password (git config key imap.pass)"));
    CHECK(refused("[hub]\n\toauthtoken = " SECRET "\n", 2,
                  "a token (git config key hub.oauthtoken)"));
    CHECK(refused("[core]\n[gitlab \"example.com\"]\n\tToken = " SECRET "\n", 3,
                  "a token (git config key gitlab.example.com.token)"));
    CHECK(refused("[x]\n\tmyPassword = \"" SECRET "\"\n", 2, "a password (git config key x.mypassword)"));
    CHECK(refused("[ci]\n\tclientSecret = " SECRET "\n", 2, "a secret (git config key ci.clientsecret)"));
    CHECK(refused("[svc]\n\tapiKey = " SECRET "\n", 2, "an API key"));
    /* old-style [section.sub], a key on the header's line, continued */
    CHECK(refused("[sendemail.work] smtppass = a\\\n" SECRET "\n", 1,
                  "git config key sendemail.work.smtppass"));
    /* a bare key, an empty value, a boolean git knows */
    CHECK(passed("[sendemail]\n\tsmtpPass\n\tsmtpPass =\n\tsmtpPass = \"\"\n"));
    CHECK(passed("[http]\n\tsslCertPasswordProtected = true\n\tproxySSLCertPasswordProtected = 1\n"
                 "[hooks]\n\tbypass = x\n"));
    CHECK(passed("[sendemail]\n\tsmtpUser = me@example.com\n\tsmtpServer = smtp.example.com\n"
                 "[core]\n\ttokenizer = x\n\tpassphraseless = true\n"));
}

TEST(a_username_shaped_like_a_password)
{
    CHECK(refused("[credential \"https://github.com\"]\n\tusername = ghp_" SECRET "\n", 2,
                  "a username shaped like a password or token (git config key "
                  "credential.https://github.com.username)"));
    CHECK(refused("[credential]\n\tusername = me:" SECRET "\n", 2, "credential.username"));
    CHECK(refused("[credential \"https://dev.azure.com\"]\n\tusername = " SECRET "\n", 2,
                  "a username shaped like"));
    CHECK(passed("[credential \"https://github.com\"]\n\tusername = octocat\n"
                 "[credential]\n\tusername = firstname.lastname@a-very-long-company-name.example\n"
                 "\tusername = x-access-token\n"));
    /* a user name elsewhere is not credential's */
    CHECK(passed("[user]\n\tusername = me:you\n"));
}

TEST(a_cookie_or_key_file_inside_the_checkout_or_its_main_repository)
{
    CHECK(refused("[http]\n\tcookieFile = .git/cookies\n", 2,
                  "a cookie file inside the checkout (git config key http.cookiefile)"));
    CHECK(refused("[http \"https://example.com/\"]\n\tcookiefile = /src/.git/c\n", 2,
                  "http.https://example.com/.cookiefile"));
    CHECK(refused("[http]\n\tcookieFile = /repos/main/.git/cookies\n", 2, "a cookie file"));
    CHECK(refused("[http]\n\tcookieFile = /src\n", 2, "a cookie file"));
    CHECK(refused("[http]\n\tcookieFile = /opt/../src/c\n", 2, "a cookie file"));
    CHECK(refused("[http]\n\tsslKey = key.pem\n", 2, "a private key file inside the checkout"));
    /* outside what the agent is shown: the container's own files */
    CHECK(passed("[http]\n\tcookieFile = /tmp/cookies\n\tcookieFile = ~/.gitcookies\n"
                 "\tcookieFile = /srcx/c\n\tcookieFile = ~other/c\n\tcookieFile =\n"
                 "\tsslKey = %(prefix)/etc/key\n[core]\n\tcookieFile = c\n"));
    /* HOME inside the checkout: ~/ leads there */
    {
        char what[600];
        CHECK(judged("[http]\n\tcookieFile = ~/c\n", &(struct lower_view){.checkout_inside = "/src", .home = "/src/h"},
                     what, sizeof(what)) == 2);
        /* no view: only a relative one is known to be inside */
        CHECK(judged("[http]\n\tcookieFile = /src/c\n", NULL, what, sizeof(what)) == 0);
        CHECK(judged("[http]\n\tcookieFile = c\n", NULL, what, sizeof(what)) == 2);
    }
}

/* A credential helper reading its secret from a file the agent can read:
 * git's store file, or a file an inline helper prints, named by the
 * agent's path or by the host's (a config the operator wrote). */
TEST(a_credential_helper_reading_a_file_inside)
{
    const char *inside = "a credential helper reading a file inside the checkout "
                         "(git config key credential.helper)";

    CHECK(refused("[credential]\n\thelper = store --file=/src/.git/creds\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = store --file /src/.git/creds\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = store --file .git/creds\n", 2, inside));
    CHECK(refused("[credential \"https://github.com\"]\n\thelper = "
                  "store --file=/home/op/repo/.git/creds\n",
                  2, "key credential.https://github.com.helper"));
    CHECK(refused("[credential]\n\thelper = \"!cat /src/.git/token\"\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = \"!f() { cat .git/creds; }; f\"\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = !cat /home/op/main/.git/tok\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = !cat /repos/main/.git/tok\n", 2, inside));
    CHECK(refused("[credential]\n\thelper = !helper --from=./secrets/tok\n", 2, inside));
    {
        char what[600];
        CHECK(judged("[credential]\n\thelper = store --file ~/c\n",
                     &(struct lower_view){.checkout_inside = "/src", .home = "/src/h"}, what,
                     sizeof(what)) == 2);
    }
    /* the helper's program may lie in the checkout; a password manager's
     * entry name, a URL, $HOME and files elsewhere are no file inside */
    CHECK(passed("[credential]\n\thelper = store\n\thelper = cache --timeout=300\n"
                 "\thelper = store --file ~/.git-credentials\n\thelper = store --file=/tmp/c\n"
                 "\thelper = !/opt/1Password/op plugin run -- gh auth git-credential\n"
                 "\thelper = !/src/tools/cred get\n\thelper = !pass show git/github\n"
                 "\thelper = \"!f() { gh auth token --hostname https://github.com/x; }; f\"\n"
                 "\thelper = !cat $HOME/.tok\n\thelper = /usr/lib/git-core/git-credential-libsecret\n"
                 "[other]\n\thelper = store --file=/src/x\n"));
}

TEST(the_first_secret_by_line_whichever_check_finds_it)
{
    CHECK(refused("[a]\n\tb = c\n[hub]\n\toauthtoken = " SECRET "\n"
                  "\turl = https://x-access-token:" SECRET "@github.com/o/r\n",
                  4, "hub.oauthtoken"));
    CHECK(refused("[remote \"o\"]\n\turl = https://u:" SECRET "@h/r\n[hub]\n\toauthtoken = x\n", 2,
                  "a URL with a user or password"));
    /* a subsection that is a URL with a password is never shown */
    CHECK(refused("[credential \"https://u:" SECRET "@h\"] username = me:x\n", 1, "a URL"));
}

TEST(entries_as_git_reads_them)
{
    const char *t = "\xef\xbb\xbf[Core] Bare = false ; c\n"
                    "[http \"https://a]b\\\"c\"]\n\tcookieFile = \" x \" y\t; z\n"
                    "[broken\n\tk1 = v\n"
                    "junk line\n"
                    "[s]\n\tk2\n\tk3 junk\n\tk4=\"q\\tr\"\\\n s\n";
    struct lgc_cursor cur = {0};
    struct git_config_entry e;
    char v[64];

    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 1 && e.line == 1 &&
          e.name_len == 4 && strncmp(e.name, "Bare", 4) == 0 && strcmp(v, "false") == 0 &&
          lgc_in_section(&cur, "core"));
    /* a quoted subsection may hold "]" and escaped quotes; the value keeps
     * its inner blanks, drops the outer ones and the comment */
    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 1 && e.line == 3 &&
          lgc_in_section(&cur, "http") && strcmp(cur.subsection, "https://a]b\"c") == 0 &&
          strcmp(v, " x  y") == 0);
    /* a header git refuses: its keys fall in no section */
    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 1 && e.line == 5 &&
          cur.section == NULL && strcmp(v, "v") == 0);
    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 1 && e.line == 8 &&
          !e.has_value && lgc_in_section(&cur, "s"));
    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 1 && e.line == 10 &&
          strcmp(v, "q\tr s") == 0);
    CHECK(lgc_next(t, strlen(t), &cur, &e, v, sizeof(v)) == 0);
    /* a value longer than the buffer: cut, and said */
    cur = (struct lgc_cursor){0};
    CHECK(lgc_next("[a]b=12345", 10, &cur, &e, v, 4) == 1 && e.over &&
          strcmp(v, "123") == 0);
}
