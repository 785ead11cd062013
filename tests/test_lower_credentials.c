/* runtime/confine/lower_credentials.c: which git config lines hand the agent a
 * credential, and which are ordinary. */
#include <string.h>

#include "runtime/confine/lower_credentials.h"
#include "tests/tap.h"

static bool flags(const char *text, unsigned want_line)
{
    const char *what = NULL;
    unsigned line = 0;
    bool r = git_config_has_credential(text, strlen(text), &line, &what);

    if (r && line != want_line)
        tap_note("line %u, wanted %u", line, want_line);
    return r && line == want_line && what != NULL;
}

static bool clean(const char *text)
{
    const char *what;
    unsigned line;

    return !git_config_has_credential(text, strlen(text), &line, &what);
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
