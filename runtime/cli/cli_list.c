#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bundle/json.h"
#include "common/escape.h"
#include "common/version.h"
#include "runtime/cli/cli.h"
#include "runtime/container/container.h"
#include "runtime/container/log.h"
#include "runtime/container/statedir.h"

/* One line per container: ID, PID, STATUS, CREATED, BUNDLE. No lock is
 * taken: a listing is a snapshot, and a container being created shows as
 * "creating". */
enum list_format { LIST_TABLE, LIST_QUIET, LIST_JSON };

static void list_one(int rootfd, const char *id, enum list_format fmt, bool *first)
{
    struct rr_state s;
    struct rr_error err;
    int dir = openat(rootfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    bool have;
    enum container_status st;
    char bundle[1024];

    if (dir < 0)
        return;
    if (fmt == LIST_QUIET) {
        printf("%s\n", id);
        close(dir);
        return;
    }
    have = statedir_read_state(dir, &s, &err) == 0;
    st = container_status_of(dir, have ? &s : NULL);
    if (have)
        rr_escape(s.bundle, strlen(s.bundle), bundle, sizeof(bundle));
    if (fmt == LIST_JSON) {
        /* runc's list --format json: id, pid, status, bundle, created */
        struct json_writer *w = json_writer_new(false);
        char *text = NULL;
        if (w != NULL) {
            json_w_begin_object(w);
            json_w_kv_string(w, "ociVersion", REVRUN_SPEC_VERSION);
            json_w_kv_string(w, "id", id);
            json_w_kv_int(w, "pid", have && st != STATUS_STOPPED ? s.pid : 0);
            json_w_kv_string(w, "status", container_status_name(st));
            json_w_key(w, "bundle");
            json_w_bytes(w, have ? s.bundle : "", have ? strlen(s.bundle) : 0);
            json_w_kv_string(w, "created", have ? s.created : "");
            json_w_end_object(w);
            if (json_writer_finish(w, &text, NULL, &err) == 0)
                printf("%s%s", *first ? "" : ",", text);
            *first = false;
            free(text);
            json_writer_free(w);
        }
    } else {
        printf("%-24s %-8lld %-9s %-31s %s\n", id,
               have && st != STATUS_STOPPED ? (long long)s.pid : 0LL, container_status_name(st),
               have ? s.created : "-", have ? bundle : "-");
    }
    if (have)
        state_free(&s);
    close(dir);
}

int cli_list(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"format", required_argument, NULL, 'f'},
        {NULL, 0, NULL, 0},
    };
    enum list_format fmt = LIST_TABLE;
    struct rr_error err;
    struct dirent *de;
    bool first = true;
    DIR *d;
    int rootfd, c;

    while ((c = getopt_long(argc, argv, "qf:", opts, NULL)) != -1) {
        if (c == 'q') {
            fmt = LIST_QUIET;
        } else if (c == 'f' && strcmp(optarg, "json") == 0) {
            fmt = fmt == LIST_QUIET ? fmt : LIST_JSON;
        } else if (c != 'f' || strcmp(optarg, "table") != 0) {
            cli_usage_error("list", c == 'f' ? "--format must be table or json" : "unknown option");
            return CLI_USAGE;
        }
    }
    if (optind != argc) {
        cli_usage_error("list", "takes no arguments");
        return CLI_USAGE;
    }
    rootfd = container_root(ctx, false, &err);
    if (rootfd < 0) {
        if (err.errnum == ENOENT) {
            if (fmt == LIST_JSON)
                puts("[]");
            return CLI_OK; /* nothing was ever created */
        }
        log_error(&err);
        return CLI_ERROR;
    }
    d = fdopendir(rootfd);
    if (d == NULL) {
        close(rootfd);
        log_msg(LOG_ERROR, "list: %m");
        return CLI_ERROR;
    }
    if (fmt == LIST_TABLE)
        printf("%-24s %-8s %-9s %-31s %s\n", "ID", "PID", "STATUS", "CREATED", "BUNDLE");
    if (fmt == LIST_JSON)
        putchar('[');
    while ((de = readdir(d)) != NULL)
        if (rr_id_valid(de->d_name))
            list_one(dirfd(d), de->d_name, fmt, &first);
    if (fmt == LIST_JSON)
        puts("]");
    closedir(d);
    return CLI_OK;
}
