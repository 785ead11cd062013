#include "writeback/patch/mbox.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A name in From: may not hold RFC 5322's specials either. */
static bool plain(const char *s, bool phrase)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f || (phrase && strchr("()<>[]:;@\\,.\"", *p) != NULL))
            return false;
    return strstr(s, "=?") == NULL;
}

void wb_mail_header_text(FILE *out, const char *s, bool phrase)
{
    if (plain(s, phrase)) {
        fputs(s, out);
        return;
    }
    fputs("=?UTF-8?q?", out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        bool lit = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                   (*p >= '0' && *p <= '9') || strchr("!*+-/.,:;", *p) != NULL;
        if (*p == ' ')
            fputc('_', out);
        else if (lit)
            fputc(*p, out);
        else
            fprintf(out, "=%02X", *p);
    }
    fputs("?=", out);
}

static void put_date(FILE *out, time_t when)
{
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    struct tm tm;

    gmtime_r(&when, &tm);
    fprintf(out, "Date: %s, %d %s %d %02d:%02d:%02d +0000\n", days[tm.tm_wday], tm.tm_mday,
            months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void put_headers(FILE *out, const struct wb_mail *m, const char *subject, size_t slen)
{
    char *s = strndup(subject, slen);

    /* git format-patch's magic line: no commit id of its own yet */
    fputs("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\nFrom: ", out);
    wb_mail_header_text(out, m->name, true);
    fprintf(out, " <%s>\n", m->email);
    put_date(out, m->when);
    fputs("Subject: [PATCH] ", out);
    wb_mail_header_text(out, s ? s : "", false);
    fputs("\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
          "Content-Transfer-Encoding: 8bit\n\n",
          out);
    free(s);
}

int wb_mbox_write(FILE *out, const struct wb_mail *m, const struct wb_changeset *cs,
                  const struct wb_patch_src *src, struct rr_error *err)
{
    size_t slen = strcspn(m->message, "\n");
    const char *body = m->message + slen;

    while (*body == '\n')
        body++;
    put_headers(out, m, m->message, slen);
    fputs(body, out);
    fputs("---\n\n", out);
    if (wb_patch_write_src(out, cs, src, err) < 0)
        return -1;
    if (wb_origin_has_base(&cs->origin))
        fprintf(out, "\nbase-commit: %s\n", cs->origin.base.commit);
    if (fflush(out) != 0 || ferror(out))
        return rr_fail(err, EIO, "writing the mail");
    return 0;
}
