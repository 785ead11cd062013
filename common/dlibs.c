#include "common/dlibs.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"

/* The build's own sonames come from the Makefile (what pkg-config found);
 * these are the fallbacks of a build without them. */
#ifndef WB_LIBGIT2_SONAME
#define WB_LIBGIT2_SONAME "libgit2.so.1.5"
#endif
#ifndef EG_LIBSSL_SONAME
#define EG_LIBSSL_SONAME "libssl.so.3"
#endif
#ifndef RR_LIBMOUNT_SONAME
#define RR_LIBMOUNT_SONAME "libmount.so.1"
#endif

/* libgit2 changes its soname every minor release. One binary serves
 * Debian 12 (1.5) and Ubuntu 24.04 (1.7): every function in
 * writeback/git/git2.h has the same prototype in both, the constants used
 * (GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_*, GIT_REPOSITORY_OPEN_NO_SEARCH,
 * GIT_OBJECT_COMMIT) the same values, and git_oid, git_error,
 * git_index_entry and git_index_time (filled for a commit's tree) the
 * same layout; no options struct is passed. A build with EXPERIMENTAL_SHA256
 * changes git_oid but is named libgit2-experimental, never these. Versions
 * not compared (1.6, 1.8 and later) are not tried: a build against one of
 * them finds its own soname first. */
static const char *const git2_sonames[] = {WB_LIBGIT2_SONAME, "libgit2.so.1.5", "libgit2.so.1.7",
                                           NULL};
static const char *const ssl_sonames[] = {EG_LIBSSL_SONAME, NULL};
static const char *const mount_sonames[] = {RR_LIBMOUNT_SONAME, NULL};

static const struct dlib_info libs[DLIB_COUNT] = {
    [DLIB_GIT2] = {"libgit2", "vetting what the agent wrote (review, diff, export, writeback)",
                   git2_sonames, "libgit2-1.5", "libgit2-1.7"},
    [DLIB_SSL] = {"libssl", "the egress broker's TLS to the model API (--agent, --upstream)",
                  ssl_sonames, "libssl3", "libssl3t64"},
    [DLIB_MOUNT] = {"libmount", "judging mounts and the mount table (create, run, review)",
                    mount_sonames, "libmount1", "libmount1"},
};

const struct dlib_info *dlib_info(enum dlib lib)
{
    return &libs[lib];
}

/* ID and VERSION_ID of /etc/os-release ("debian" "12", "ubuntu" "24.04"). */
static void os_release(char *id, size_t idlen, char *ver, size_t verlen)
{
    _cleanup_close_ int fd = open("/etc/os-release", O_RDONLY | O_CLOEXEC);
    char text[4096], *save = NULL;
    ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

    id[0] = ver[0] = '\0';
    if (n <= 0)
        return;
    text[n] = '\0';
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        char *v = strchr(line, '=');
        if (v == NULL)
            continue;
        *v++ = '\0';
        if (*v == '"' || *v == '\'') {
            const char quote[2] = {*v++, '\0'};
            v[strcspn(v, quote)] = '\0';
        }
        if (strcmp(line, "ID") == 0)
            snprintf(id, idlen, "%s", v);
        else if (strcmp(line, "VERSION_ID") == 0)
            snprintf(ver, verlen, "%s", v);
    }
}

void dlib_package(enum dlib lib, char *buf, size_t len)
{
    const struct dlib_info *d = &libs[lib];
    char id[32], ver[32];

    os_release(id, sizeof(id), ver, sizeof(ver));
    if (strcmp(id, "debian") == 0 && strcmp(ver, "12") == 0)
        snprintf(buf, len, "%s", d->pkg_debian12);
    else if (strcmp(id, "ubuntu") == 0 && strcmp(ver, "24.04") == 0)
        snprintf(buf, len, "%s", d->pkg_ubuntu2404);
    else if (strcmp(d->pkg_debian12, d->pkg_ubuntu2404) == 0)
        snprintf(buf, len, "%s", d->pkg_debian12);
    else
        snprintf(buf, len, "%s (Debian 12) or %s (Ubuntu 24.04)", d->pkg_debian12,
                 d->pkg_ubuntu2404);
}

void dlib_sonames(enum dlib lib, char *buf, size_t len)
{
    const char *const *s = libs[lib].sonames;
    size_t used = 0;

    buf[0] = '\0';
    for (size_t i = 0; s[i] != NULL && used < len; i++) {
        bool dup = false;
        for (size_t k = 0; k < i; k++)
            dup = dup || strcmp(s[k], s[i]) == 0;
        if (!dup)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " or " : "", s[i]);
    }
}
