/* runtime/confine/lower_credentials.c: which git config lines hand the agent a
 * credential, and which are ordinary. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "runtime/confine/lower_credentials.h"
#include "tests/tap.h"

static bool flags(const char *text, unsigned want_line)
{
    char what[600] = "";
    unsigned line = 0;
    bool r = lgc_has_credential(text, strlen(text), NULL, &line, what, sizeof(what));

    if (r && line != want_line)
        tap_note("line %u, wanted %u", line, want_line);
    return r && line == want_line && what[0] != '\0';
}

static bool clean(const char *text)
{
    char what[600];
    unsigned line;

    return !lgc_has_credential(text, strlen(text), NULL, &line, what, sizeof(what));
}

TEST(extraheader_in_any_spelling)
{
    CHECK(flags("[core]\n\tbare = false\n[http \"https://github.com/\"]\n"
                "\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n",
                4));
    CHECK(flags("[http]\n\tExtraHeader=Authorization: bearer x\n", 2));
    CHECK(flags("[http]\n  extraHeader   = x\n", 2));
    /* a key on the header's own line, as git allows */
    CHECK(flags("[core]\n[http \"https://github.com/\"] extraheader = AUTHORIZATION: basic x\n", 2));
}

TEST(urls_with_a_user_or_password)
{
    CHECK(flags("[remote \"origin\"]\n\turl = https://x-access-token:ghs_abc@github.com/o/r\n", 2));
    CHECK(flags("[remote \"origin\"]\n\turl = https://ghp_token@github.com/o/r\n", 2));
    CHECK(flags("\turl = https://0123456789abcdef0123456789abcdef0123@example.com/r\n", 1));
    CHECK(flags("\turl = HTTP://user:pw@example.com/\n", 1));
    CHECK(flags("\turl = ssh://git:secret@host/r\n", 1));
    /* quotes and continued lines as git reads them */
    CHECK(flags("\turl = \"https://x-access-token:ghs_SECRET\"@github.com/o/r\n", 1));
    CHECK(flags("[a]\n\tx = 1\n\turl = https://x-access-token:ghs_SEC\\\nRET@github.com/o/r\n", 3));
    CHECK(flags("[remote \"o\"]\n\tx = a\\\n b\n\turl = https://ghp_t@github.com/\n", 4));
}

TEST(inline_credential_helpers)
{
    CHECK(flags("[credential]\n\thelper = \"!f() { echo password=ghp_x; }; f\"\n", 2));
    CHECK(clean("[credential]\n\thelper = store\n\thelper = cache --timeout=300\n"));
    CHECK(flags("[credential]\n\thelper = store --file .git/creds\n", 2));
    CHECK(clean("[credential]\n\thelper = store --file ~/.git-credentials\n"));
    /* a password manager's helper is not a password */
    CHECK(clean("[credential]\n\thelper = !/opt/1Password/op plugin run -- gh auth git-credential\n"));
}

TEST(ordinary_configs_pass)
{
    CHECK(clean("[remote \"origin\"]\n\turl = https://github.com/o/r\n"
                "\tfetch = +refs/heads/*:refs/remotes/origin/*\n"));
    CHECK(clean("\turl = ssh://git@github.com/o/r\n"));
    CHECK(clean("\turl = https://myorg@dev.azure.com/myorg/p/_git/r\n"));
    CHECK(clean("\turl = https://someone@bitbucket.org/team/r.git\n"));
    CHECK(clean("[http]\n\tproxy = http://proxy:3128\n[url \"ssh://git@github.com/\"]\n"
                "\tinsteadOf = https://github.com/\n"));
    CHECK(clean("\turl = git@github.com:o/r.git\n"));
    CHECK(clean("[user]\n\temail = someone@example.com\n"));
    CHECK(clean("[http]\n\textraheaders = not the key\n[alias]\n\tnoextraheader = x\n"));
    CHECK(clean(""));
}

/* ---- the files git reads: symlinked configs and includes, on disk ---- */

#define TOK "ghp_0123456789abcdefghijABCDEFGHIJ012345"
#define URL "[remote \"origin\"]\n\turl = https://x-access-token:" TOK "@github.com/o/r\n"

/* A checkout in a fresh directory with an empty .git; removed by done(). */
static char co[64];

static bool begin(void)
{
    char git[96];

    snprintf(co, sizeof(co), "/tmp/rr-lowercred.XXXXXX");
    if (mkdtemp(co) == NULL)
        return false;
    snprintf(git, sizeof(git), "%s/.git", co);
    return mkdir(git, 0755) == 0;
}

static void done(void)
{
    struct rr_error e;

    CHECK(rr_remove_tree(AT_FDCWD, co, &e) == 0);
}

/* co/rel holding text (directories made on the way) */
static void put(const char *rel, const char *text)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", co, rel);
    for (char *p = path + strlen(co) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        (void)mkdir(path, 0755);
        *p = '/';
    }
    f = fopen(path, "w");
    CHECK(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0);
}

static void link_at(const char *rel, const char *target)
{
    char path[512];

    snprintf(path, sizeof(path), "%s/%s", co, rel);
    CHECK(symlink(target, path) == 0);
}

static const struct lower_view view = {.checkout_inside = "/src", .home = "/home/agent"};

/* Refused, the message naming want (and never the token); or, want NULL,
 * passed. */
static bool judged(const char *want)
{
    struct rr_error e = {0};
    int r = lower_refuse_credentials(co, &view, &e);

    if (r < 0)
        tap_note("refused: %s", e.msg);
    if (want == NULL)
        return r == 0;
    return r < 0 && strstr(e.msg, want) != NULL && strstr(e.msg, TOK) == NULL;
}

TEST(a_symlinked_config_is_read_where_it_leads_inside_the_checkout)
{
    if (!CHECK(begin()))
        return;
    put(".git/config.real", "[core]\n" URL);
    link_at(".git/config", "config.real");
    /* followed by openat2 beneath the checkout: named as git names it */
    CHECK(judged(".git/config line 3 holds a URL"));
    unlink(strcat(strcpy((char[128]){0}, co), "/.git/config"));
    /* out of .git, still in the checkout; and a link to a link */
    put("cfg/real", URL);
    link_at("cfg/hop", "real");
    link_at(".git/config", "../cfg/hop");
    CHECK(judged(".git/config line 2"));
    /* absolute, naming the checkout's place inside (/src) */
    unlink(strcat(strcpy((char[128]){0}, co), "/.git/config"));
    link_at(".git/config", "/src/cfg/real");
    CHECK(judged("cfg/real line 2 holds a URL with a user or password in it (linked from "));
    /* config.worktree too */
    unlink(strcat(strcpy((char[128]){0}, co), "/.git/config"));
    link_at(".git/config.worktree", "/src//./cfg/real");
    CHECK(judged("cfg/real line 2"));
    done();
}

TEST(a_symlinked_config_leading_out_of_the_checkout)
{
    char outside[128];

    if (!CHECK(begin()))
        return;
    /* an absolute host path outside: inside it names the container's own
     * tree, not this file; passed */
    snprintf(outside, sizeof(outside), "%s-outside", co);
    {
        FILE *f = fopen(outside, "w");
        CHECK(f != NULL && fputs(URL, f) >= 0 && fclose(f) == 0);
    }
    link_at(".git/config", outside);
    CHECK(judged(NULL));
    unlink(strcat(strcpy((char[128]){0}, co), "/.git/config"));
    /* ".." past the checkout: inside, beside its place; refused */
    link_at(".git/config", "../../x/config");
    CHECK(judged(".git/../../x/config: a symlink or \"..\" on its path leads out of"));
    unlink(strcat(strcpy((char[128]){0}, co), "/.git/config"));
    /* ".." in an absolute target: cannot be told */
    link_at(".git/config", "/opt/../src/cfg");
    CHECK(judged("whose \"..\" revrun cannot tell"));
    unlink(outside);
    done();
}

TEST(include_and_includeif_files_are_checked)
{
    if (!CHECK(begin()))
        return;
    put(".git/config", "[core]\n\tbare = false\n[include]\n\tpath = creds.inc\n");
    put(".git/creds.inc", "[user]\n\tname = x\n" URL);
    CHECK(judged(".git/creds.inc line 4 holds a URL"));
    CHECK(judged("(included from "));
    CHECK(judged(".git/config line 4)"));
    put(".git/config", "[includeIf \"gitdir:/\"]\n\tpath = hdr.inc\n");
    put(".git/hdr.inc", "[http]\n\textraheader = AUTHORIZATION: basic " TOK "\n");
    CHECK(judged(".git/hdr.inc line 2 holds an http.extraheader"));
    /* every condition, any spelling, quoted with a comment after it */
    put(".git/config", "[IncludeIf \"onbranch:never-*\"] PATH = \"../sub dir/h.inc\" ; why\n");
    put("sub dir/h.inc", URL);
    CHECK(judged("sub dir/h.inc line 2"));
    /* in the agent's HOME, which is not the checkout: not read */
    put(".git/config", "[include]\n\tpath = ~/creds.inc\n\tpath = /etc/creds.inc\n"
                       "\tpath = %(prefix)/etc/x\n\tpath = ~other/x\n\tpath = missing.inc\n");
    CHECK(judged(NULL));
    /* absolute, naming the checkout's place inside */
    put(".git/config", "[include]\n\tpath = /src/.git/creds.inc\n");
    CHECK(judged(".git/creds.inc line 4"));
    /* "~/" where the agent's HOME is the checkout's place inside: read */
    {
        struct rr_error e = {0};
        put(".git/config", "[include]\n\tpath = ~/.git/creds.inc\n");
        CHECK(lower_refuse_credentials(co, &(struct lower_view){.checkout_inside = "/src", .home = "/src"}, &e) < 0 &&
              strstr(e.msg, ".git/creds.inc line 4") != NULL);
        CHECK(judged(NULL)); /* HOME elsewhere */
    }
    /* a path key outside an include section is no include */
    put(".git/config", "[core]\n\tpath = creds.inc\n[include \"x\"]\n");
    CHECK(judged(NULL));
    done();
}

TEST(nested_includes_a_cycle_and_the_depth_cap)
{
    char name[32], text[64];

    if (!CHECK(begin()))
        return;
    put(".git/config", "[include]\n\tpath = a.inc\n");
    put(".git/a.inc", "[include]\n\tpath = sub/b.inc\n");
    put(".git/sub/b.inc", "[include]\n\tpath = ../c.inc\n");
    put(".git/c.inc", URL);
    CHECK(judged(".git/sub/../c.inc line 2 holds a URL with a user or password in it (included from "));
    CHECK(judged(".git/a.inc line 2) (included from "));
    /* a cycle ends: each file once */
    put(".git/c.inc", "[include]\n\tpath = config\n\tpath = a.inc\n");
    CHECK(judged(NULL));
    put(".git/c.inc", "[include]\n\tpath = config\n" URL);
    CHECK(judged(".git/sub/../c.inc line 4"));
    /* 10 deep, as git's limit: read; 11: refused */
    put(".git/config", "[include]\n\tpath = d1\n");
    for (int i = 1; i <= 10; i++) {
        snprintf(name, sizeof(name), ".git/d%d", i);
        snprintf(text, sizeof(text), "[include]\n\tpath = d%d\n", i + 1);
        put(name, i < 10 ? text : "[core]\n");
    }
    CHECK(judged(NULL));
    put(".git/d10", URL);
    CHECK(judged(".git/d10 line 2"));
    put(".git/d10", "[include]\n\tpath = d11\n");
    put(".git/d11", "[core]\n");
    CHECK(judged(".git/d10 line 2: includes nest deeper than 10"));
    /* the count cap */
    {
        char big[64 * 24] = "[include]\n";
        for (int i = 0; i < 65; i++) {
            snprintf(name, sizeof(name), ".git/w%d", i);
            put(name, "[core]\n");
            snprintf(big + strlen(big), sizeof(big) - strlen(big), "\tpath = w%d\n", i);
        }
        put(".git/config", big);
        CHECK(judged(".git/config leads to more than 64 included or linked files"));
    }
    done();
}

TEST(the_main_git_directory_follows_includes_and_links_too)
{
    struct rr_error e = {0};
    struct lower_view v = {.checkout_inside = "/src", .common_inside = "/repos/main/.git"};
    char c[128];
    int fd;

    if (!CHECK(begin()))
        return;
    snprintf(c, sizeof(c), "%s/.git", co);
    fd = open(c, O_PATH | O_DIRECTORY | O_CLOEXEC);
    put(".git/config", "[include]\n\tpath = creds.inc\n");
    put(".git/creds.inc", URL);
    CHECK(lower_refuse_git_common(c, fd, NULL, &v, &e) < 0 && strstr(e.msg, "creds.inc line 2"));
    put(".git/config", "[core]\n");
    put(".git/worktrees/pr/real", URL);
    link_at(".git/worktrees/pr/config.worktree", "/repos/main/.git/worktrees/pr/real");
    CHECK(lower_refuse_git_common(c, fd, NULL, &v, &e) < 0 &&
          strstr(e.msg, "worktrees/pr/real line 2 holds a URL with a user or password in it (linked from "));
    close(fd);
    done();
}

TEST(include_paths_read_as_git_reads_them)
{
    const char *t = "; [include]\n[Include]\n\tPath = a\n"
                    "[includeIf \"gitdir:x\"] path = \"b  c\" # x\n"
                    "[core]\n\tpath = no\n[include.x]\n  path = d\\\\e\\\n f  \n"
                    "[include]\n\tpath\n\tpath = \"g;h\"\n";
    struct lgc_include_cursor cur = {0};
    char out[64];
    unsigned line;

    CHECK(lgc_next_include(t, strlen(t), &cur, &line, out, sizeof(out)) == 1 &&
          strcmp(out, "a") == 0 && line == 3);
    CHECK(lgc_next_include(t, strlen(t), &cur, &line, out, sizeof(out)) == 1 &&
          strcmp(out, "b  c") == 0 && line == 4);
    CHECK(lgc_next_include(t, strlen(t), &cur, &line, out, sizeof(out)) == 1 &&
          strcmp(out, "d\\e f") == 0 && line == 8);
    CHECK(lgc_next_include(t, strlen(t), &cur, &line, out, sizeof(out)) == 1 &&
          strcmp(out, "g;h") == 0 && line == 12);
    CHECK(lgc_next_include(t, strlen(t), &cur, &line, out, sizeof(out)) == 0);
    /* longer than the buffer: git could not open it either */
    CHECK(lgc_next_include("[include]path=abc", 17, &(struct lgc_include_cursor){0}, &line,
                                  out, 3) == -1);
}

TEST(secrets_by_key_in_the_checkout_and_the_main_git_directory)
{
    struct rr_error e = {0};
    struct lower_view v = {.checkout_inside = "/src", .common_inside = "/repos/main/.git"};
    char c[128];
    int fd;

    if (!CHECK(begin()))
        return;
    put(".git/config", "[include]\n\tpath = mail.inc\n");
    put(".git/mail.inc", "[sendemail]\n\tsmtpPass = " TOK "\n");
    CHECK(judged(".git/mail.inc line 2 holds a password (git config key sendemail.smtppass) "
                 "(included from "));
    put(".git/mail.inc", "[http]\n\tcookieFile = /src/.git/cookies\n");
    CHECK(judged(".git/mail.inc line 2 holds a cookie file inside the checkout"));
    /* the main git directory: its own place inside counts too */
    snprintf(c, sizeof(c), "%s/.git", co);
    fd = open(c, O_PATH | O_DIRECTORY | O_CLOEXEC);
    put(".git/config", "[http \"https://x\"]\n\tcookieFile = /repos/main/.git/c\n");
    CHECK(lower_refuse_git_common(c, fd, NULL, &v, &e) < 0 &&
          strstr(e.msg, "config line 2 holds a cookie file inside the checkout (git config key "
                        "http.https://x.cookiefile)"));
    put(".git/config", "[core]\n");
    put(".git/worktrees/pr/config.worktree", "[hub]\n\toauthtoken = " TOK "\n");
    CHECK(lower_refuse_git_common(c, fd, NULL, &v, &e) < 0 &&
          strstr(e.msg, "worktrees/pr/config.worktree line 2 holds a token (git config key "
                        "hub.oauthtoken)") != NULL &&
          strstr(e.msg, TOK) == NULL);
    close(fd);
    done();
}
