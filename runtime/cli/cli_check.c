/* revrun check [--bundle DIR]: what this host can enforce. Without a bundle
 * it reports; with one it also judges the bundle's config against the host
 * and exits non-zero when the config cannot be enforced here. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/check/check.h"
#include "runtime/cli/cli.h"
#include "runtime/container/log.h"

/* Every probe, in the order the report shows them. */
static void (*const probes[])(struct check_report *) = {
    check_kernel,  check_userns,   check_overlay,  check_fuse,
    check_seccomp, check_cgroups,  check_landlock, check_egress,
};

static void print_report(const struct check_report *r)
{
    static const char *const tags[] = {"ok  ", "warn", "FAIL", "info"};

    for (size_t i = 0; i < r->n; i++) {
        const struct check_item *it = &r->items[i];
        printf("%s  %-18s %s\n", tags[it->status], it->name, it->detail);
        if (it->remedy[0] != '\0' && (it->status == CHECK_FAIL || it->status == CHECK_WARN))
            printf("      remedy: %s\n", it->remedy);
    }
}

int cli_check(struct rr_ctx *ctx, int argc, char **argv)
{
    static const struct option opts[] = {
        {"bundle", required_argument, NULL, 'b'},
        {NULL, 0, NULL, 0},
    };
    static struct check_report report;
    const char *bundle = NULL;
    struct rr_config cfg = {0};
    struct profile p = {0};
    struct rr_error err;
    bool have_cfg = false;
    int c, fd;

    while ((c = getopt_long(argc, argv, "b:", opts, NULL)) != -1) {
        if (c != 'b') {
            cli_usage_error("check", "unknown option");
            return CLI_USAGE;
        }
        bundle = optarg;
    }
    report.rootless = ctx->rootless;
    if (bundle != NULL) {
        fd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || config_load(fd, &cfg, &err) < 0 ||
            profile_build(&cfg, ctx->rootless, &p, &err) < 0) {
            if (fd < 0)
                rr_fail(&err, errno, "bundle %s", bundle);
            log_error(&err);
            printf("FAIL  %-18s the config cannot be used: see the error above\n", "config");
            return CLI_ERROR;
        }
        close(fd);
        have_cfg = true;
        report.profile = &p;
    }
    printf("revrun check: %s%s\n", ctx->rootless ? "unprivileged" : "root",
           have_cfg ? ", judging the bundle's config" : "");
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
        probes[i](&report);
    print_report(&report);
    if (have_cfg) {
        profile_free(&p);
        config_free(&cfg);
    }
    if (report.needed_missing) {
        printf("this host cannot enforce everything the %s asks for\n",
               have_cfg ? "config" : "default spec");
        return CLI_ERROR;
    }
    return CLI_OK;
}
