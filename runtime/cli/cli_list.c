#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/container/statedir.h"

/* One line per container: ID, PID, STATUS, CREATED, BUNDLE. No lock is
 * taken: a listing is a snapshot, and a container being created shows as
 * "creating". */
static void list_one(int rootfd, const char *id)
{
    struct rr_state s;
    struct rr_error err;
    int dir = openat(rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    bool have;
    enum container_status st;
    char bundle[1024];

    if (dir < 0)
        return;
    have = statedir_read_state(dir, &s, &err) == 0;
    st = container_status_of(dir, have ? &s : NULL);
    if (have)
        rr_escape(s.bundle, strlen(s.bundle), bundle, sizeof(bundle));
    printf("%-24s %-8lld %-9s %-31s %s\n", id,
           have && st != STATUS_STOPPED ? (long long)s.pid : 0LL, container_status_name(st),
           have ? s.created : "-", have ? bundle : "-");
    if (have)
        state_free(&s);
    close(dir);
}

int cli_list(struct rr_ctx *ctx, int argc, char **argv)
{
    struct rr_error err;
    struct dirent *de;
    DIR *d;
    int rootfd;

    (void)argv;
    if (argc != 1) {
        cli_usage_error("list", "takes no arguments");
        return CLI_USAGE;
    }
    rootfd = container_root(ctx, false, &err);
    if (rootfd < 0) {
        if (err.errnum == ENOENT)
            return CLI_OK; /* nothing was ever created */
        log_error(&err);
        return CLI_ERROR;
    }
    d = fdopendir(rootfd);
    if (d == NULL) {
        close(rootfd);
        log_msg(LOG_ERROR, "list: %m");
        return CLI_ERROR;
    }
    printf("%-24s %-8s %-9s %-31s %s\n", "ID", "PID", "STATUS", "CREATED", "BUNDLE");
    while ((de = readdir(d)) != NULL)
        if (rr_id_valid(de->d_name))
            list_one(dirfd(d), de->d_name);
    closedir(d);
    return CLI_OK;
}
