/* config.json -> struct rr_config (bundle/config_*.c, jfield.c): every
 * refusal is checked for the JSON path and the problem it names, starting
 * from one valid config edited in one place (config_fixture.h). What loads
 * and what round-trips: test_config_roundtrip.c. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bundle/config.h"
#include "bundle/json.h"
#include "tests/config_fixture.h"
#include "tests/tap.h"

struct edit {
    const char *path, *value, *want;
};

/* Each edit alone is refused with its message. */
static void all_refused(const struct edit *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CHECK(refused(e[i].path, e[i].value, e[i].want));
}

#define ALL_REFUSED(table) all_refused(table, sizeof(table) / sizeof(table[0]))

TEST(wrong_types_name_path_and_types)
{
    static const struct edit bad[] = {
        {"process", "[]", "process: expected object, got array"},
        {"process.terminal", "\"yes\"", "process.terminal: expected boolean, got string"},
        {"process.user", "1", "process.user: expected object, got integer"},
        {"process.user.uid", "\"1000\"", "process.user.uid: expected integer, got string"},
        {"process.args", "\"sh\"", "process.args: expected array, got string"},
        {"process.args[1]", "1", "process.args[1]: expected string, got integer"},
        {"process.env[0]", "null", "process.env[0]: expected string, got null"},
        {"process.cwd", "[]", "process.cwd: expected string, got array"},
        {"process.rlimits", "{}", "process.rlimits: expected array, got object"},
        {"process.rlimits[0]", "\"x\"", "process.rlimits[0]: expected object"},
        {"process.noNewPrivileges", "1", "process.noNewPrivileges: expected boolean"},
        {"process.capabilities", "[]", "process.capabilities: expected object"},
        {"process.capabilities.bounding", "\"x\"", "process.capabilities.bounding: expected array"},
        {"root", "\"rootfs\"", "root: expected object, got string"},
        {"root.readonly", "1", "root.readonly: expected boolean, got integer"},
        {"hostname", "false", "hostname: expected string, got boolean"},
        {"mounts", "{}", "mounts: expected array, got object"},
        {"mounts[1]", "\"/tmp\"", "mounts[1]: expected object, got string"},
        {"mounts[1].options", "\"ro\"", "mounts[1].options: expected array"},
        {"mounts[1].options[0]", "1", "mounts[1].options[0]: expected string"},
        {"linux", "[]", "linux: expected object, got array"},
        {"linux.namespaces", "{}", "linux.namespaces: expected array"},
        {"linux.namespaces[2].type", "1", "linux.namespaces[2].type: expected string"},
        {"linux.uidMappings[0].hostID", "\"0\"", "linux.uidMappings[0].hostID: expected integer"},
        {"linux.resources.memory", "5", "linux.resources.memory: expected object"},
        {"linux.resources.memory.limit", "\"1G\"",
         "linux.resources.memory.limit: expected integer, got string"},
        {"linux.maskedPaths", "\"/proc\"", "linux.maskedPaths: expected array"},
        {"linux.cgroupsPath", "1", "linux.cgroupsPath: expected string"},
        {"linux.seccomp.syscalls", "{}", "linux.seccomp.syscalls: expected array"},
        {"linux.seccomp.syscalls[0].names", "\"read\"",
         "linux.seccomp.syscalls[0].names: expected array"},
        {"linux.seccomp.syscalls[1].args[0]", "[]",
         "linux.seccomp.syscalls[1].args[0]: expected object"},
        {"annotations", "[]", "annotations: expected object"},
        {"annotations.n", "1", "annotations.n: expected string, got integer"},
        {"revrun", "\"/src\"", "revrun: expected object, got string"},
        {"revrun.timeout", "\"60\"", "revrun.timeout: expected integer, got string"},
        {"revrun.ptrace", "\"no\"", "revrun.ptrace: expected boolean"},
        {"revrun.minFreeSpace", "[]", "revrun.minFreeSpace: expected integer, got array"},
        {"revrun.nestedSandboxes", "0", "revrun.nestedSandboxes: expected boolean"},
        {"revrun.bestEffort", "\"memory\"", "revrun.bestEffort: expected array"},
        {"revrun.upperSize", "true", "revrun.upperSize: expected integer, got boolean"},
        {"revrun.writeback", "[]", "revrun.writeback: expected object"},
        {"revrun.writeback.maxFiles", "\"10\"", "revrun.writeback.maxFiles: expected integer"},
        {"revrun.egress", "\"broker\"", "revrun.egress: expected object"},
        {"revrun.egress.port", "\"80\"", "revrun.egress.port: expected integer"},
        {"ociVersion", "1", "ociVersion: expected string, got integer"},
    };

    ALL_REFUSED(bad);
}

TEST(top_level_must_be_an_object)
{
    struct json_node *root = frag("[1]");

    CHECK(config_from_json(root, &cfg, &err) < 0 &&
          strstr(err.msg, "(top level): expected object, got array") != NULL);
    json_free(root);
}

TEST(unknown_keys_are_refused_everywhere_but_annotations)
{
    static const char *const where[] = {
        "",
        "process.",
        "process.user.",
        "process.capabilities.",
        "process.rlimits[0].",
        "root.",
        "mounts[0].",
        "mounts[2].",
        "linux.",
        "linux.namespaces[0].",
        "linux.uidMappings[0].",
        "linux.gidMappings[0].",
        "linux.resources.",
        "linux.resources.memory.",
        "linux.resources.pids.",
        "linux.resources.cpu.",
        "linux.seccomp.",
        "linux.seccomp.syscalls[0].",
        "linux.seccomp.syscalls[1].args[0].",
        "revrun.",
        "revrun.writeback.",
        "revrun.egress.",
    };

    for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
        char path[128], want[160];
        snprintf(path, sizeof(path), "%sbogusKey", where[i]);
        snprintf(want, sizeof(want), "%s: unknown or unsupported key", path);
        CHECK(refused(path, "1", want));
    }
    /* Keys the OCI spec has and revrun does not enforce are refused too. */
    CHECK(refused("linux.sysctl", "{}", "linux.sysctl: unknown"));
    CHECK(refused("process.apparmorProfile", "\"x\"", "process.apparmorProfile: unknown"));
    CHECK(refused("linux.seccomp.flags", "[]", "linux.seccomp.flags: unknown"));
    CHECK(refused("linux.seccomp.listenerPath", "\"/x\"", "linux.seccomp.listenerPath: unknown"));
    CHECK(refused("hooks", "{}", "hooks: unknown"));
    /* An unknown key is shown escaped. */
    CHECK(refused("process.\x1b"
                  "c",
                  "1",
                  "process.\\x1b"
                  "c: unknown"));
    CHECK(accepted("annotations.bogusKey", "\"fine\""));
}

TEST(required_members)
{
    static const struct edit bad[] = {
        {"ociVersion", NULL, "ociVersion: required"},
        {"ociVersion", "\"2.0.0\"", "ociVersion: 2.0.0 is not a 1.x runtime spec"},
        {"process", NULL, "process: required"},
        {"process.user", NULL, "process.user: required"},
        {"process.user.uid", NULL, "process.user.uid: required"},
        {"process.user.gid", NULL, "process.user.gid: required"},
        {"process.args", NULL, "process.args: required"},
        {"process.args", "[]", "process.args: required"},
        {"process.cwd", NULL, "process.cwd: required"},
        {"root", NULL, "root: required"},
        {"root.path", NULL, "root.path: required"},
        {"root.path", "\"\"", "root.path: must not be empty"},
        {"revrun.lower", NULL, "revrun.lower: required"},
        {"mounts[1].destination", NULL, "mounts[1].destination: required"},
        {"mounts[1].type", NULL, "mounts[1].type: required"},
        {"mounts[2].source", NULL, "mounts[2].source: required for a bind mount"},
        {"linux.namespaces[0].type", NULL, "linux.namespaces[0].type: required"},
        {"linux.uidMappings[0].size", NULL, "linux.uidMappings[0].size: required"},
        {"process.rlimits[0].hard", NULL, "process.rlimits[0]: soft and hard are required"},
        {"process.rlimits[0].type", NULL, "process.rlimits[0].type: required"},
        {"linux.seccomp.defaultAction", NULL, "linux.seccomp.defaultAction: required"},
        {"linux.seccomp.syscalls[1].args[0].op", NULL,
         "linux.seccomp.syscalls[1].args[0].op: required"},
        {"linux.seccomp.syscalls[1].args[0].index", NULL,
         "linux.seccomp.syscalls[1].args[0].index: required"},
    };

    ALL_REFUSED(bad);
    /* A non-bind mount needs no source. */
    CHECK(accepted("mounts[1].source", NULL));
}

TEST(paths_must_be_absolute)
{
    static const struct edit bad[] = {
        {"process.cwd", "\"workspace\"", "process.cwd: must be an absolute path"},
        {"process.cwd", "\"\"", "process.cwd: must be an absolute path"},
        {"mounts[1].destination", "\"tmp\"", "mounts[1].destination: must be an absolute path"},
        {"mounts[2].source", "\"usr\"", "mounts[2].source: must be an absolute path"},
        {"revrun.lower", "\"checkout\"", "revrun.lower: must be an absolute path"},
        {"revrun.lower", "\"./checkout\"", "revrun.lower: must be an absolute path"},
        {"revrun.checkoutPath", "\"workspace\"", "revrun.checkoutPath: must be an absolute path"},
        {"linux.maskedPaths[0]", "\"proc/kcore\"",
         "linux.maskedPaths[0]: must be an absolute path"},
        {"linux.readonlyPaths[0]", "\"proc/sys\"",
         "linux.readonlyPaths[0]: must be an absolute path"},
    };

    ALL_REFUSED(bad);
    /* A relative bundle path is fine for root.path (OCI). */
    CHECK(accepted("root.path", "\"rootfs\""));
}

TEST(dot_dotdot_and_empty_components_are_refused)
{
    static const char *const bad[] = {"\"/a/../b\"", "\"/..\"",    "\"/a/.\"",   "\"/./a\"",
                                      "\"/a/./b\"",  "\"/a/../\"", "\"/a/b/..\""};
    static const char *const where[] = {
        "process.cwd",         "mounts[1].destination", "mounts[2].source",      "revrun.lower",
        "revrun.checkoutPath", "linux.maskedPaths[0]",  "linux.readonlyPaths[0]"};

    for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++)
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            char want[128];
            snprintf(want, sizeof(want), "%s: \".\" and \"..\" components are not allowed",
                     where[w]);
            CHECK(refused(where[w], bad[i], want));
        }
    for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
        static const char *const empty[] = {"\"//\"", "\"//workspace\"", "\"/a//b\"", "\"/a//\""};
        char want[128];
        snprintf(want, sizeof(want), "%s: empty components", where[w]);
        for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++)
            CHECK(refused(where[w], empty[i], want));
    }
    /* Names that merely start with dots are names. */
    CHECK(accepted("process.cwd", "\"/a/.../..b/.c/b..\""));
    CHECK(accepted("mounts[1].destination", "\"/tmp/\""));
}

TEST(overlong_paths_are_refused)
{
    char *v = malloc(4200);

    if (v == NULL)
        return;
    v[0] = '"';
    for (size_t i = 1; i < 4097; i++)
        v[i] = (i % 2) ? '/' : 'a';
    strcpy(v + 4097, "\"");
    CHECK(refused("process.cwd", v, "process.cwd: path is too long"));
    v[4095] = '"';
    v[4096] = '\0';
    CHECK(accepted("process.cwd", v));
    free(v);
}

TEST(environment_entries_need_a_name_and_equals)
{
    CHECK(refused("process.env[1]", "\"NOEQUALS\"", "process.env[1]: expected NAME=VALUE"));
    CHECK(refused("process.env[0]", "\"=value\"", "process.env[0]: expected NAME=VALUE"));
    CHECK(accepted("process.env[0]", "\"A==\""));
}

TEST(capabilities_must_be_empty)
{
    CHECK(refused("process.capabilities.bounding", "[\"CAP_SYS_ADMIN\"]",
                  "process.capabilities.bounding: revrun grants the agent no capabilities; "
                  "remove CAP_SYS_ADMIN"));
    CHECK(refused("process.capabilities.ambient", "[1]",
                  "process.capabilities.ambient: revrun grants the agent no capabilities"));
    CHECK(accepted("process.capabilities",
                   "{\"bounding\": [], \"effective\": [], \"inheritable\": [], \"permitted\": [], "
                   "\"ambient\": []}"));
}

TEST(user_extras_are_refused)
{
    CHECK(refused("process.user.additionalGids", "[5]",
                  "process.user.additionalGids: supplementary groups are not supported"));
    CHECK(
        refused("process.user.additionalGids", "5", "process.user.additionalGids: supplementary"));
    CHECK(accepted("process.user.additionalGids", "[]"));
    CHECK(refused("process.user.umask", "18", "process.user.umask: not supported"));
}

TEST(namespace_rules)
{
    CHECK(refused("linux.namespaces[1].path", "\"/proc/1/ns/mnt\"",
                  "linux.namespaces[1].path: joining an existing namespace is not supported"));
    CHECK(refused("linux.namespaces[3].type", "\"time\"",
                  "linux.namespaces[3].type: unknown namespace type"));
    CHECK(refused("linux.namespaces[3].type", "\"NETWORK\"", "linux.namespaces[3].type: unknown"));
    CHECK(refused("linux.namespaces[3].type", "\"pid\"", "linux.namespaces[3]: pid listed twice"));
    CHECK(accepted("linux.namespaces", "[{\"type\": \"mount\"}]") &&
          cfg.linux.namespaces == RR_NS_MOUNT);
}

TEST(rlimit_rules)
{
    static const struct edit bad[] = {
        {"process.rlimits[0].type", "\"RLIMIT_BOGUS\"", "process.rlimits[0].type: unknown rlimit"},
        {"process.rlimits[0].soft", "4097", "process.rlimits[0]: soft is above hard"},
        {"process.rlimits",
         "[{\"type\": \"RLIMIT_CORE\", \"soft\": 0, \"hard\": 0},"
         " {\"type\": \"RLIMIT_CORE\", \"soft\": 0, \"hard\": 0}]",
         "process.rlimits[1]: RLIMIT_CORE given twice"},
        {"process.rlimits[0].soft", "-1", "process.rlimits[0].soft: must not be negative"},
        {"process.rlimits[0].hard", "18446744073709551616",
         "process.rlimits[0].hard: 18446744073709551616 is out of range"},
        {"process.rlimits[0].hard", "4096.0",
         "process.rlimits[0].hard: expected an integer in range, got 4096.0"},
        {"process.rlimits[0].hard", "4e3", "process.rlimits[0].hard: expected an integer"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("process.rlimits[0].soft", "4096"));
    CHECK(accepted("process.rlimits[0].hard", "18446744073709551615") &&
          cfg.process.rlimits[0].hard == UINT64_MAX);
}

TEST(id_mapping_rules)
{
    static const struct edit bad[] = {
        {"linux.uidMappings[0].size", "0",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.gidMappings[0].size", "0",
         "linux.gidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].containerID", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].hostID", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].size", "4294967295",
         "linux.uidMappings[0]: size is zero or the range overflows"},
        {"linux.uidMappings[0].hostID", "4294967296",
         "linux.uidMappings[0].hostID: 4294967296 is out of range 0..4294967295"},
        {"linux.uidMappings[0].hostID", "-1", "linux.uidMappings[0].hostID: -1 is out of range"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("linux.uidMappings[0].containerID", "4294967294"));
}

TEST(too_many_id_mappings)
{
    char *v = malloc(341 * 48 + 8);
    size_t o = 0;

    if (v == NULL)
        return;
    v[o++] = '[';
    for (unsigned i = 0; i < 341; i++)
        o += (size_t)sprintf(v + o, "%s{\"containerID\":%u,\"hostID\":%u,\"size\":1}", i ? "," : "",
                             i, i + 100000);
    strcpy(v + o, "]");
    CHECK(refused("linux.uidMappings", v, "linux.uidMappings: too many mappings"));
    /* 340, the kernel's limit, is accepted. */
    strcpy(strstr(v, ",{\"containerID\":340,"), "]");
    CHECK(accepted("linux.uidMappings", v) && cfg.linux.n_uid_mappings == 340);
    free(v);
}

TEST(huge_and_fractional_integers_are_refused_with_the_path)
{
    static const struct edit bad[] = {
        {"process.user.uid", "99999999999999999999",
         "process.user.uid: expected an integer in range, got 99999999999999999999"},
        {"process.user.uid", "4294967296", "process.user.uid: 4294967296 is out of range"},
        {"process.user.gid", "-1", "process.user.gid: -1 is out of range"},
        {"process.user.uid", "1000.5",
         "process.user.uid: expected an integer in range, got 1000.5"},
        {"linux.resources.pids.limit", "1e3",
         "linux.resources.pids.limit: expected an integer in range, got 1e3"},
        {"linux.resources.pids.limit", "9223372036854775808",
         "linux.resources.pids.limit: expected an integer in range"},
        {"revrun.timeout", "-5", "revrun.timeout: must not be negative"},
        {"revrun.timeout", "1.5", "revrun.timeout: expected an integer in range, got 1.5"},
        {"revrun.timeout", "18446744073709551616",
         "revrun.timeout: 18446744073709551616 is out of range"},
        {"revrun.timeout", "-18446744073709551616", "revrun.timeout: expected an integer"},
        {"revrun.writeback.maxFiles", "-1", "revrun.writeback.maxFiles: must not be negative"},
        {"revrun.writeback.maxDepth", "4294967296",
         "revrun.writeback.maxDepth: 4294967296 is out of range"},
        {"revrun.egress.port", "1e2", "revrun.egress.port: expected an integer"},
        {"linux.seccomp.defaultErrnoRet", "-1",
         "linux.seccomp.defaultErrnoRet: -1 is out of range"},
        {"linux.seccomp.syscalls[1].args[0].value", "-1",
         "linux.seccomp.syscalls[1].args[0].value: must not be negative"},
    };

    ALL_REFUSED(bad);
}

TEST(resource_rules)
{
    static const struct edit bad[] = {
        {"linux.resources.memory.swap", "1048575",
         "linux.resources.memory.swap: below memory.limit"},
        {"linux.resources.memory.limit", "0",
         "linux.resources.memory.limit: 0 is below the minimum 1"},
        {"linux.resources.pids.limit", "0", "linux.resources.pids.limit: 0 is below the minimum 1"},
        {"linux.resources.pids.limit", "-1", "linux.resources.pids.limit: -1 is below"},
        {"linux.resources.cpu.quota", "999",
         "linux.resources.cpu.quota: 999 is below the minimum 1000"},
        {"linux.resources.cpu.period", "999", "linux.resources.cpu.period: 999 is below"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("linux.resources.memory.swap", "1048576"));
}

TEST(revrun_enums_and_names)
{
    CHECK(refused("revrun.overlay", "\"zfs\"",
                  "revrun.overlay: \"zfs\" is not one of the accepted values"));
    CHECK(refused("revrun.overlay", "\"Native\"", "revrun.overlay: \"Native\" is not one"));
    CHECK(accepted("revrun.overlay", "\"fuse\"") && cfg.revrun.overlay == RR_BACKEND_FUSE);
    CHECK(accepted("revrun.overlay", "\"native\"") && cfg.revrun.overlay == RR_BACKEND_NATIVE);
    CHECK(refused("revrun.network", "\"bridge\"",
                  "revrun.network: \"bridge\" is not one of the accepted values"));
    CHECK(accepted("revrun.network", "\"host\"") && cfg.revrun.network == RR_NET_HOST);
    CHECK(refused("revrun.bestEffort", "[\"memory\", \"seccomp\"]",
                  "revrun.bestEffort[1]: not one of: " RR_BEST_EFFORT_NAMES));
    CHECK(refused("revrun.bestEffort", "[\"Memory\"]", "revrun.bestEffort[0]: not one of"));
    CHECK(accepted("revrun.bestEffort",
                   "[\"memory\", \"pids\", \"cpu\", \"upperSize\", \"landlock\"]"));
    /* revrun.git.worktree: a worktree checkout's main git directory */
    CHECK(accepted(NULL, NULL) && !cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{\"worktree\": \"hide\"}") && cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{\"worktree\": \"show\"}") && !cfg.revrun.git_worktree_hide);
    CHECK(accepted("revrun.git", "{}") && !cfg.revrun.git_worktree_hide);
    CHECK(refused("revrun.git", "{\"worktree\": \"off\"}",
                  "revrun.git.worktree: \"off\" is not one of the accepted values"));
    CHECK(refused("revrun.git", "{\"worktree\": true}", "revrun.git.worktree"));
    CHECK(refused("revrun.git", "{\"hooks\": \"hide\"}", "revrun.git"));
    CHECK(refused("revrun.git", "\"hide\"", "revrun.git"));
}

TEST(revrun_sizes_and_caps)
{
    static const struct edit bad[] = {
        {"revrun.upperSize", "\"512K\"", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "1048575", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "0", "revrun.upperSize: at least 1M"},
        {"revrun.upperSize", "\"10X\"", "revrun.upperSize: not a size"},
        {"revrun.upperSize", "\"-1G\"", "revrun.upperSize: not a size"},
        {"revrun.upperSize", "\"99999999999T\"", "revrun.upperSize: not a size"},
        {"revrun.writeback.maxDepth", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxFiles", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxNameBytes", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxPathBytes", "0", "revrun.writeback: caps must be above zero"},
        {"revrun.writeback.maxFileBytes", "\"1Q\"", "revrun.writeback.maxFileBytes: not a size"},
    };

    ALL_REFUSED(bad);
    CHECK(accepted("revrun.upperSize", "1048576") && cfg.revrun.upper_size == 1048576);
    CHECK(accepted("revrun.upperSize", "\"2GiB\"") && cfg.revrun.upper_size == 2ULL << 30);
    CHECK(accepted("revrun.writeback.maxTotalBytes", "\"1G\"") &&
          cfg.revrun.writeback.max_total_bytes == 1ULL << 30);
    /* A list given replaces the default rather than adding to it. */
    CHECK(accepted("revrun.writeback.warn", "[]") && cfg.revrun.writeback.warn.n == 0);
}

TEST(egress_rules)
{
    CHECK(accepted("revrun.egress", broker) && cfg.revrun.egress.mode == RR_EGRESS_BROKER &&
          strcmp(cfg.revrun.egress.header, "x-api-key") == 0 && cfg.revrun.egress.allow.n == 1 &&
          strcmp(cfg.revrun.egress.allow.v[0], "/v1/") == 0 && cfg.revrun.egress.port == 8080);
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"credentialEnv\": \"KEY\", \"port\": 8080}",
                  "revrun.egress.upstream: an https:// URL is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"http://api.example.com\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 8080}",
                  "revrun.egress.upstream: an https:// URL is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", \"port\": 8080}",
                  "revrun.egress: exactly one of credentialFile and credentialEnv is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", \"port\": 8080, "
                  "\"credentialEnv\": \"KEY\", \"credentialFile\": \"/run/key\"}",
                  "revrun.egress: exactly one of credentialFile and credentialEnv"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialFile\": \"key\", \"port\": 8080}",
                  "revrun.egress.credentialFile: must be an absolute path"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\"}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 0}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress",
                  "{\"mode\": \"broker\", \"upstream\": \"https://a.example\", "
                  "\"credentialEnv\": \"KEY\", \"port\": 65536}",
                  "revrun.egress.port: a port 1..65535 is required"));
    CHECK(refused("revrun.egress.mode", "\"proxy\"",
                  "revrun.egress.mode: \"proxy\" is not one of the accepted values"));
    CHECK(refused("revrun.egress", "{\"mode\": \"broker\", \"allow\": \"/v1/\"}",
                  "revrun.egress.allow: expected array"));
    /* mode none: nothing else is checked (nothing is brokered). */
    CHECK(accepted("revrun.egress", "{\"mode\": \"none\", \"upstream\": \"http://x\"}"));
    CHECK(accepted("revrun.egress", "{}") && cfg.revrun.egress.mode == RR_EGRESS_NONE);
}

TEST(seccomp_rules)
{
    CHECK(refused("linux.seccomp.defaultAction", "\"SCMP_ACT_NOTIFY\"",
                  "linux.seccomp.defaultAction: unsupported seccomp action"));
    CHECK(refused("linux.seccomp.syscalls[0].action", "\"SCMP_ACT_TRACE\"",
                  "linux.seccomp.syscalls[0].action: unsupported seccomp action"));
    CHECK(refused("linux.seccomp.syscalls[0].action", "\"scmp_act_allow\"",
                  "linux.seccomp.syscalls[0].action: unsupported"));
    CHECK(refused("linux.seccomp.syscalls[1].args[0].op", "\"SCMP_CMP_BOGUS\"",
                  "linux.seccomp.syscalls[1].args[0].op: unknown comparison"));
    CHECK(refused("linux.seccomp.syscalls[1].args[0].index", "6",
                  "linux.seccomp.syscalls[1].args[0].index: syscalls have six arguments (0..5)"));
    CHECK(accepted("linux.seccomp.syscalls[1].args[0].index", "5") &&
          cfg.linux.seccomp.rules[1].args[0].index == 5);
    CHECK(refused("linux.seccomp.syscalls[1].args",
                  "[{\"index\":0,\"op\":\"SCMP_CMP_EQ\"},{\"index\":1,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":2,\"op\":\"SCMP_CMP_EQ\"},{\"index\":3,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":4,\"op\":\"SCMP_CMP_EQ\"},{\"index\":5,\"op\":\"SCMP_CMP_EQ\"},"
                  "{\"index\":0,\"op\":\"SCMP_CMP_NE\"}]",
                  "linux.seccomp.syscalls[1].args: at most six argument conditions"));
    CHECK(refused("linux.seccomp.syscalls[0].names", "[]",
                  "linux.seccomp.syscalls[0].names: at least one syscall name is required"));
    CHECK(refused("linux.seccomp.syscalls[0].names", NULL,
                  "linux.seccomp.syscalls[0].names: at least one syscall name"));
    CHECK(accepted("linux.seccomp.syscalls[0].errnoRet", "38") &&
          cfg.linux.seccomp.rules[0].errno_ret == 38 && cfg.linux.seccomp.rules[1].errno_ret == 1);
    CHECK(accepted("linux.seccomp.defaultAction", "\"SCMP_ACT_KILL_THREAD\"") &&
          cfg.linux.seccomp.default_action == RR_SCMP_KILL);
}
