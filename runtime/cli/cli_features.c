/* revrun --version and revrun features: what this build supports, said the
 * way crun says it (--version) and the way runtime-spec's features.json
 * does (features), so that an engine that probes sees the truth. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <yajl/yajl_version.h>

#include "bundle/json.h"
#include "runtime/cli/cli.h"
#include "runtime/confine/landlock.h"
#include "runtime/container/log.h"
#include "common/version.h"

/* The Makefile passes the commit (git rev-parse, -dirty for local edits). */
#ifndef REVRUN_COMMIT
#define REVRUN_COMMIT "unknown"
#endif

void cli_version(FILE *out)
{
    const struct scmp_version *sv = seccomp_version();
    int abi = landlock_abi();

    fprintf(out, "revrun version %s\ncommit: %s\nspec: %s\n", REVRUN_VERSION, REVRUN_COMMIT,
            REVRUN_SPEC_VERSION);
    if (sv != NULL)
        fprintf(out, "libseccomp: %u.%u.%u\n", sv->major, sv->minor, sv->micro);
    if (abi > 0)
        fprintf(out, "landlock: ABI %d\n", abi);
    else
        fputs("landlock: not offered by this kernel\n", out);
    /* What is built in, +NAME; what revrun never does, -NAME. */
    fputs("+SECCOMP +LANDLOCK +CAP +USERNS +IDMAP +YAJL +LIBMOUNT +OPENSSL +FUSE-OVERLAYFS "
          "+CGROUPV1 +CGROUPV2 -SYSTEMD -SELINUX -APPARMOR -CRIU -EBPF\n",
          out);
}

static void strings(struct json_writer *w, const char *key, const char *const *v)
{
    json_w_key(w, key);
    json_w_begin_array(w);
    for (; *v != NULL; v++)
        json_w_string(w, *v);
    json_w_end_array(w);
}

static const char *const namespaces[] = {"cgroup", "ipc", "mount", "network", "pid",
                                         "user",   "uts", NULL};
/* rootfs.c / profile/mounts.c judge_options: what a mount may say. */
static const char *const mount_options[] = {
    "bind", "rbind", "ro", "rw", "nosuid", "nodev", "noexec", "exec", "noatime",
    "strictatime", "nodiratime", "relatime", "private", "rprivate", "slave", "rslave", NULL};
static const char *const seccomp_actions[] = {
    "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD",
    "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP", "SCMP_ACT_LOG", NULL};
static const char *const seccomp_ops[] = {"SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",
                                          "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT",
                                          "SCMP_CMP_MASKED_EQ", NULL};
static const char *const seccomp_archs[] = {"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32",
                                            "SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM", NULL};
static const char *const none[] = {NULL};
/* Hooks config_parse accepts and runs, and the capabilities the profile may
 * grant: none of either in revrun's own profile (a config naming them is
 * refused); engine mode's policy widens these lists when it lands. */
static const char *const features_hooks[] = {NULL};
static const char *const features_capabilities[] = {NULL};

static int features_json(char **out, struct rr_error *err)
{
    struct json_writer *w = json_writer_new(true);
    int r;

    if (w == NULL)
        return rr_fail(err, ENOMEM, "features");
    json_w_begin_object(w);
    json_w_kv_string(w, "ociVersionMin", REVRUN_SPEC_MIN);
    json_w_kv_string(w, "ociVersionMax", REVRUN_SPEC_MAX);
    strings(w, "hooks", features_hooks);
    strings(w, "mountOptions", mount_options);
    json_w_key(w, "linux");
    json_w_begin_object(w);
    strings(w, "namespaces", namespaces);
    /* Capabilities revrun may grant (inside its user namespace only). */
    strings(w, "capabilities", features_capabilities);
    json_w_key(w, "cgroup");
    json_w_begin_object(w);
    json_w_kv_bool(w, "v1", true);
    json_w_kv_bool(w, "v2", true);
    json_w_kv_bool(w, "systemd", false);
    json_w_kv_bool(w, "systemdUser", false);
    json_w_end_object(w);
    json_w_key(w, "seccomp");
    json_w_begin_object(w);
    json_w_kv_bool(w, "enabled", true);
    strings(w, "actions", seccomp_actions);
    strings(w, "operators", seccomp_ops);
    strings(w, "archs", seccomp_archs);
    strings(w, "knownFlags", none);
    strings(w, "supportedFlags", none);
    json_w_end_object(w);
    json_w_key(w, "apparmor");
    json_w_begin_object(w);
    json_w_kv_bool(w, "enabled", false);
    json_w_end_object(w);
    json_w_key(w, "selinux");
    json_w_begin_object(w);
    json_w_kv_bool(w, "enabled", false);
    json_w_end_object(w);
    json_w_key(w, "intelRdt");
    json_w_begin_object(w);
    json_w_kv_bool(w, "enabled", false);
    json_w_end_object(w);
    json_w_end_object(w);
    json_w_key(w, "annotations");
    json_w_begin_object(w);
    json_w_kv_string(w, "io.revrun.version", REVRUN_VERSION);
    json_w_kv_string(w, "io.revrun.landlock", landlock_abi() > 0 ? "true" : "false");
    json_w_end_object(w);
    json_w_end_object(w);
    r = json_writer_finish(w, out, NULL, err);
    json_writer_free(w);
    return r;
}

int cli_features(struct rr_ctx *ctx, int argc, char **argv)
{
    struct rr_error err;
    char *json = NULL;

    (void)ctx;
    (void)argv;
    if (!cli_no_options(argc, argv))
        return CLI_USAGE;
    if (argc != 1) {
        cli_usage_error("features", "takes no arguments");
        return CLI_USAGE;
    }
    if (features_json(&json, &err) < 0) {
        log_error(&err);
        return CLI_ERROR;
    }
    printf("%s\n", json);
    free(json);
    return CLI_OK;
}
