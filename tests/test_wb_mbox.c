/* The mail of a change set: headers git am decodes (RFC 2047 words for
 * what is not plain ASCII, a name's specials too), the message ending at
 * "---", the patch read from an export's blobs by hash, the base named. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/tap.h"
#include "writeback/patch/mbox.h"

static char *header(const char *s, bool phrase)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);

    wb_mail_header_text(f, s, phrase);
    fclose(f);
    return buf;
}

TEST(header_text_is_plain_or_one_encoded_word)
{
    static const char *const cases[][3] = {
        {"fix the greeting", "fix the greeting", "0"},
        {"caf\xc3\xa9 au lait", "=?UTF-8?q?caf=C3=A9_au_lait?=", "0"},
        {"a =?x?q?y?= b", "=?UTF-8?q?a_=3D=3Fx=3Fq=3Fy=3F=3D_b?=", "0"},
        {"Doe, John", "=?UTF-8?q?Doe,_John?=", "1"},
        {"Doe, John", "Doe, John", "0"},
        {"tab\there", "=?UTF-8?q?tab=09here?=", "0"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = header(cases[i][0], cases[i][2][0] == '1');
        if (!CHECK(got && strcmp(got, cases[i][1]) == 0))
            tap_note("%s -> %s", cases[i][0], got ? got : "?");
        free(got);
    }
}

static void put(int dfd, const char *text, unsigned char sha[WB_SHA256_LEN])
{
    char hex[WB_SHA256_HEX];
    int fd;

    wb_sha256(text, strlen(text), sha);
    wb_hex(sha, WB_SHA256_LEN, hex);
    fd = openat(dfd, hex, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd >= 0) {
        (void)!write(fd, text, strlen(text));
        close(fd);
    }
}

TEST(the_mail_from_an_exports_blobs)
{
    char dir[] = "/tmp/wbmbox.XXXXXX";
    struct wb_changeset cs = {0};
    struct wb_obj base = {.type = WB_T_FILE, .size = 6}, new = {.type = WB_T_FILE, .size = 12};
    struct rr_error err;
    char *buf = NULL;
    size_t len;
    FILE *f;
    int dfd;

    CHECK(mkdtemp(dir) != NULL);
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    put(dfd, "hello\n", base.sha256);
    put(dfd, "hello\nfixed\n", new.sha256);
    wb_changeset_add(&cs, "a.txt", 5, &base, &new, &err);
    memcpy(cs.origin.base.commit, "0123456789abcdef0123456789abcdef01234567", 41);
    struct wb_mail m = {.name = "Op",
                        .email = "op@x",
                        .when = 0,
                        .message = "Fix it\n\n    the agent's body\n\nRevrun-Digest: sha256:00\n"};
    struct wb_patch_src src = {.base_fd = dfd, .new_fd = dfd, .by_hash = true};
    f = open_memstream(&buf, &len);
    CHECK(wb_mbox_write(f, &m, &cs, &src, &err) == 0);
    fclose(f);
    CHECK(buf && strncmp(buf,
                         "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 "
                         "2001\nFrom: Op <op@x>\nDate: Thu, 1 Jan 1970 00:00:00 +0000\n"
                         "Subject: [PATCH] Fix it\n",
                         146) == 0);
    CHECK(buf && strstr(buf, "8bit\n\n    the agent's body\n\nRevrun-Digest: sha256:00\n---\n\n"
                             "diff --git a/a.txt b/a.txt\n"));
    CHECK(buf && strstr(buf, "@@ -1,1 +1,2 @@\n hello\n+fixed\n"));
    CHECK(buf && strstr(buf, "\nbase-commit: 0123456789abcdef0123456789abcdef01234567\n"));
    free(buf);
    /* a blob that is not what the set says: no mail */
    put(dfd, "hello\n", base.sha256);
    {
        char hex[WB_SHA256_HEX];
        wb_hex(new.sha256, WB_SHA256_LEN, hex);
        int fd = openat(dfd, hex, O_WRONLY | O_TRUNC | O_CLOEXEC);
        (void)!write(fd, "hello\nfixeD\n", 12);
        close(fd);
        f = open_memstream(&buf, &len);
        CHECK(wb_mbox_write(f, &m, &cs, &src, &err) < 0);
        fclose(f);
        free(buf);
        unlinkat(dfd, hex, 0);
    }
    {
        char hex[WB_SHA256_HEX];
        wb_hex(base.sha256, WB_SHA256_LEN, hex);
        unlinkat(dfd, hex, 0);
    }
    wb_changeset_free(&cs);
    close(dfd);
    rmdir(dir);
}
