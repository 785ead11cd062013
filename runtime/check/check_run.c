/* `revrun check` as one call: the host probes, every step of create probed
 * on its own, then the scratch container; the report printed, and the
 * verdict returned. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/escape.h"
#include "runtime/check/check.h"
#include "runtime/container/log.h"

/* The host probes, in the order the report shows them; the steps of
 * create and the scratch container come after. */
static void (*const probes[])(struct check_report *) = {
    check_kernel,  check_userns,   check_host_ids, check_overlay, check_fuse,
    check_seccomp, check_cgroups,  check_landlock, check_egress,
};

static void print_lines(const char *label, const char *text)
{
    static const char pad[] = "                ";
    const char *p = text;
    const char *cont = pad + sizeof(pad) - 1 - (strlen(label) < sizeof(pad) ? strlen(label) : 0);

    while (*p != '\0') {
        size_t n = strcspn(p, "\n");
        char esc[2048];
        rr_escape(p, n, esc, sizeof(esc));
        printf("      %s%s\n", label, esc);
        label = cont;
        p += n;
        if (*p == '\n')
            p++;
    }
}

static void print_report(const struct check_report *r)
{
    static const char *const tags[] = {"ok  ", "warn", "FAIL", "info"};
    char cause[512];

    for (size_t i = 0; i < r->n; i++) {
        const struct check_item *it = &r->items[i];
        char esc[1024];
        rr_escape(it->detail, strlen(it->detail), esc, sizeof(esc));
        printf("%s  %-18s %s\n", tags[it->status], it->name, esc);
        if (it->status != CHECK_FAIL && it->status != CHECK_WARN)
            continue;
        if (it->causes != 0) {
            check_cause_text(&r->facts, it->causes, cause, sizeof(cause));
            print_lines("cause: ", cause);
        }
        if (it->remedy[0] != '\0')
            print_lines("remedy: ", it->remedy);
    }
}

/* Every blocker's flag at once: what to run the outer container with. */
static void print_summary(const struct check_report *r)
{
    char text[2048];

    if (r->all_causes == 0)
        return;
    check_remedies(&r->facts, r->all_causes, r->rootless, text, sizeof(text));
    printf("to lift every blocker above at once, add to the outer container's flags:\n");
    print_lines("", text);
    if (r->not_probed > 0)
        printf("%u step%s could not be probed behind those blockers: run check again once they "
               "are lifted\n",
               r->not_probed, r->not_probed == 1 ? "" : "s");
}

/* <state root>.check-XXXXXX, on the state root's filesystem (its free
 * space and features are what create will meet), with lower/ (an empty
 * checkout), mnt/ (a mountpoint for the pivot probe) and state/. */
static int make_scratch(const struct rr_ctx *ctx, char *out, size_t len, struct rr_error *err)
{
    static const char *const subdirs[] = {"lower", "mnt"};
    char path[PATH_MAX];

    if ((size_t)snprintf(out, len, "%s.check-XXXXXX", ctx->root) >= len ||
        mkdtemp(out) == NULL) {
        snprintf(out, len, "/tmp/revrun-check-XXXXXX");
        if (mkdtemp(out) == NULL)
            return rr_fail(err, errno, "a scratch directory for the check");
    }
    chmod(out, 0711); /* the container user reaches lower/ only through its mount */
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/%s", out, subdirs[i]);
        if (mkdir(path, 0755) < 0)
            return rr_fail(err, errno, "mkdir %s", path);
    }
    return 0;
}

static void remove_scratch(const char *dir)
{
    static const char *const subdirs[] = {"lower", "mnt", "state"};
    char path[PATH_MAX];

    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
        if (rmdir(path) < 0 && errno != ENOENT)
            log_msg(LOG_WARN, "check: could not remove %s: %s", path, strerror(errno));
    }
    if (rmdir(dir) < 0)
        log_msg(LOG_WARN, "check: could not remove %s: %s", dir, strerror(errno));
}

/* The config the steps and the scratch container take: the bundle's (its
 * checkout replaced by the scratch lower, its command by `true`, no egress:
 * the credential is not read by check), or the default spec. */
static int scratch_config(const struct rr_ctx *ctx, const char *bundle, const char *lower,
                          struct rr_config *cfg, struct rr_error *err)
{
    if (bundle == NULL)
        return profile_default_config(cfg, lower, ctx->rootless, err);
    int fd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return rr_fail(err, errno, "bundle %s", bundle);
    int rc = config_load(fd, cfg, err);
    close(fd);
    if (rc < 0)
        return -1;
    free(cfg->revrun.lower);
    cfg->revrun.lower = strdup(lower);
    strv_free(&cfg->process.args);
    cfg->process.terminal = false;
    cfg->revrun.egress.mode = RR_EGRESS_NONE;
    if (cfg->revrun.lower == NULL || strv_push(&cfg->process.args, "true") < 0)
        return rr_fail(err, ENOMEM, "scratch config");
    return 0;
}

static int load_bundle(const struct rr_ctx *ctx, const char *bundle, struct rr_config *cfg,
                       struct profile *p, struct rr_error *err)
{
    int fd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return rr_fail(err, errno, "bundle %s", bundle);
    if (config_load(fd, cfg, err) < 0 || profile_build(cfg, ctx->rootless, p, err) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/* The scratch directory, and the config and profile the steps take. */
static int prepare(const struct rr_ctx *ctx, const char *bundle, struct check_report *r,
                   struct rr_config *scfg, struct profile *sp, struct rr_error *err)
{
    char lower[PATH_MAX];

    if (make_scratch(ctx, r->scratch, sizeof(r->scratch), err) < 0)
        return -1;
    snprintf(lower, sizeof(lower), "%s/lower", r->scratch);
    if (scratch_config(ctx, bundle, lower, scfg, err) < 0)
        return -1;
    return profile_build(scfg, ctx->rootless, sp, err);
}

static void run_probes(struct check_report *r, const struct rr_ctx *ctx,
                       const struct rr_config *scfg)
{
    for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
        probes[i](r);
    check_steps(r);
    check_scratch(r, ctx, scfg);
}

int check_run(const struct rr_ctx *ctx, const char *bundle, bool json)
{
    static struct check_report report;
    struct rr_config cfg = {0}, scfg = {0};
    struct profile p = {0}, sp = {0};
    struct rr_error err;
    int rc = 0;

    memset(&report, 0, sizeof(report));
    report.rootless = ctx->rootless;
    check_read_facts(&report.facts);
    if (bundle != NULL && load_bundle(ctx, bundle, &cfg, &p, &err) < 0) {
        log_error(&err);
        if (json)
            check_print_json(&report, bundle, &err);
        else
            printf("FAIL  %-18s the config cannot be used: see the error above\n", "config");
        config_free(&cfg);
        return -1;
    }
    report.profile = bundle != NULL ? &p : NULL;
    /* first: without libmount no profile can be built, and the report
     * still names the package */
    check_libs(&report);
    if (prepare(ctx, bundle, &report, &scfg, &sp, &err) < 0) {
        log_error(&err);
        if (json)
            check_print_json(&report, bundle, &err);
        else
            print_report(&report);
        rc = -1;
        goto out;
    }
    report.shape = &sp;
    if (json) {
        run_probes(&report, ctx, &scfg);
        rc = report.needed_missing || report.create_failed ? -1 : 0;
        if (check_print_json(&report, bundle, NULL) < 0)
            rc = -1;
        goto out;
    }
    printf("revrun check: %s%s%s\n", ctx->rootless ? "unprivileged" : "root",
           report.facts.in_container ? ", inside a container" : "",
           bundle != NULL ? ", judging the bundle's config" : "");
    run_probes(&report, ctx, &scfg);
    print_report(&report);
    print_summary(&report);
    if (report.needed_missing || report.create_failed) {
        printf("this host cannot enforce everything the %s asks for%s\n",
               bundle != NULL ? "config" : "default spec",
               report.create_failed ? ": create fails here" : "");
        rc = -1;
    }
out:
    profile_free(&sp);
    config_free(&scfg);
    if (report.scratch[0] != '\0')
        remove_scratch(report.scratch);
    if (bundle != NULL) {
        profile_free(&p);
        config_free(&cfg);
    }
    return rc;
}
