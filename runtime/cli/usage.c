#include "runtime/cli/usage.h"

#include <string.h>

#include "common/exitcode.h"

#define END {NULL, NULL}

static const struct usage_opt global_opts[] = {
    {"--root DIR", "state root (default /run/revrun; rootless $XDG_RUNTIME_DIR/revrun, or without "
                   "XDG_RUNTIME_DIR the private /tmp/revrun-UID, 0700)"},
    {"--log FILE", "also write every message, errors included, to FILE (appended)"},
    {"--log-format text|json", "json: one {\"level\",\"msg\",\"time\"} object a line, as runc "
                               "writes it (what containerd's shim and conmon read back)"},
    {"--systemd-cgroup", "linux.cgroupsPath is systemd's slice:prefix:name; revrun maps it to "
                         "the cgroupfs path systemd would use (/SLICE-PATH/PREFIX-NAME.scope) "
                         "and writes it itself: systemd's D-Bus is never called"},
    {"--version", "version, commit, runtime-spec version and the features built in"},
    {"--man", "this whole table as a man page (roff, one section per command)"},
    {"--bash-completion", "print the bash completion script, made from this table (installed "
                          "as bash-completion/completions/revrun)"},
    {"--help", "this text; `revrun COMMAND --help` for one command"},
    END,
};

#define AGENT_FLAGS                                                                          \
    {"--agent NAME|FILE", "a preset (claude, codex, gemini) or a preset FILE; the flags below "  \
                          "override it"},                                                      \
    {"--agent-dir DIR", "the agent's install, read-only at /opt/agent, its bin and "            \
                        "node_modules/.bin first on PATH"},                                    \
    {"--bind SRC:DST[:ro|rw]", "a host path inside (read-only unless :rw)"},                    \
    {"--upstream URL, --egress-upstream URL", "the model API, reached through the broker"},   \
    {"--credential-file F, --credential-env VAR", "where the broker reads the key"},           \
    {"--ca-file F, --header NAME, --header-prefix TEXT, --allow PREFIX", "the broker's upstream " \
                                                                          "settings"},          \
    {"--base-url-env VAR[=/PATH]", "set to the relay's URL (with PATH) inside (repeatable)"},   \
    {"--env K=V", "the agent's environment (repeatable)"},                                     \
    {"--home DIR", "copied (not bound) into the agent's HOME"},                                \
    {"--artifact ~/PATH", "kept in OUT/artifacts after the run (repeatable)"},                 \
    {"--nested-sandboxes", "let the agent make its own namespaces (bwrap)"},                    \
    {"--best-effort memory,pids,cpu", "run without these limits where the host cannot enforce " \
                                      "them (rootless without cgroup delegation), said in the " \
                                      "log and result.json; also upperSize, landlock"},       \
    {"--no-activity", "no record of what the agent ran (revrun.activity \"off\"; it is "       \
                      "recorded by default)"}

static const struct usage_opt o_spec[] = {
    {"--lower DIR", "the checkout to review (default: the current directory)"},
    {"--rootless", "a config for an unprivileged caller"},
    AGENT_FLAGS,
    END,
};
static const struct usage_opt o_create[] = {
    {"--bundle DIR, -b DIR", "the OCI bundle (default: the current directory)"},
    {"--pid-file FILE", "write the container's pid there"},
    {"--console-socket PATH", "process.terminal: the pty master is sent to this unix socket"},
    {"--preserve-fds N", "pass fds 3 .. 3+N-1 on to the process (an engine's bundle; no directory or O_PATH fd)"},
    {"--no-pivot", "accepted for runc compatibility; revrun always pivots into the new root "
                   "(its root is never a chroot the process could leave)"},
    {"--no-new-keyring", "accepted for runc compatibility; the container's process gets no "
                         "session keyring of its own, and keyctl() is denied by the seccomp "
                         "floor either way"},
    END,
};
static const struct usage_opt o_none[] = {END};
static const struct usage_opt o_kill[] = {
    {"--all, -a", "signal every process of the container (its cgroup, or its pid namespace), "
                  "each pinned by a pidfd"},
    END,
};
static const struct usage_opt o_destroy[] = {
    {"--force, -f", "stop a running container first (SIGTERM, then SIGKILL)"},
    END,
};
static const struct usage_opt o_run[] = {
    {"--bundle DIR", "the OCI bundle (default: the current directory)"},
    {"--lower DIR", "build the bundle from the default spec around this checkout"},
    {"--out DIR", "with --lower: bound read-write at /out"},
    {"--keep", "keep the container after it exits (for diff/export)"},
    {"--id ID", "with --lower: the container's ID"},
    END,
};
static const struct usage_opt o_exec[] = {
    {"--process FILE, -p FILE", "the process to run, as an OCI process object (JSON)"},
    {"--detach, -d", "do not wait: the process is left to the caller's subreaper"},
    {"--pid-file FILE", "write the process's pid there"},
    {"--console-socket PATH", "with a terminal: where the pty master goes"},
    {"--tty, -t", "give the process a terminal (needs --console-socket); with --process, "
                  "accepted as runc accepts it: the file's process.terminal decides"},
    {"--cwd DIR", "inline form: working directory"},
    {"--env, -e NAME=VALUE", "inline form: add to the container's environment"},
    {"--preserve-fds N", "pass fds 3 .. 3+N-1 on"},
    END,
};
static const struct usage_opt o_ps[] = {
    {"--format table|json, -f", "table: `ps -ef` lines of the container's processes; json: an "
                                "array of their pids"},
    END,
};
static const struct usage_opt o_update[] = {
    {"--resources FILE, -r FILE", "an OCI linux.resources object (JSON; - for stdin)"},
    {"--memory BYTES", "memory limit"},
    {"--memory-swap BYTES", "memory plus swap limit"},
    {"--pids-limit N", "maximum number of processes"},
    {"--cpu-quota US", "CPU time per period, in microseconds"},
    {"--cpu-period US", "the period, in microseconds"},
    END,
};
static const struct usage_opt o_list[] = {
    {"--quiet, -q", "IDs only"},
    {"--format table|json", "json: an array of state objects"},
    END,
};
static const struct usage_opt o_check[] = {
    {"--bundle DIR", "judge this bundle's config against the host"},
    {"--json", "the report as one JSON object (ok, items: status, name, detail, cause, remedy), "
               "for fleet monitoring; the exit status is the same"},
    END,
};
/* What diff, export and writeback share (runtime/cli/cli_wb.h). */
#define WB_SOURCE_FLAGS                                                                          \
    {"--lower DIR, --upper DIR", "vet a bare lower/upper pair (from any overlay user) instead "  \
                                 "of a live container's upper; needs --format"},               \
    {"--format overlay|overlay-userxattr|fuse-overlayfs", "the markers the pair's upper was "    \
                                                          "written with"},                     \
    {"--deny-content FILE", "one secret a line (4-4096 bytes): a change set whose new content, " \
                            "symlink targets or paths hold one is refused (plain substrings)"}

static const struct usage_opt o_diff[] = {
    {"--json", "the change set as JSON"},
    {"--patch", "a git-style patch"},
    {"--mbox", "the commit `apply --commit` would write, as a mail `git am` applies on a "
               "clone at the base"},
    {"--author \"NAME <EMAIL>\"", "with --mbox: the mail's author (default: git's user.name "
                                  "and user.email)"},
    {"DIR", "an exported set, or a review's --out, instead of ID"},
    WB_SOURCE_FLAGS,
    END,
};
static const struct usage_opt o_export[] = {
    WB_SOURCE_FLAGS,
    {"--format mbox", "with an exported DIR: the mail of the commit `apply --commit` would "
                      "write, on stdout, for `git am` on any clone at the base (the same tree)"},
    {"--author \"NAME <EMAIL>\"", "the mail's author (default: git's user.name and "
                                  "user.email; never the agent)"},
    {"--only PATH, --exclude PATH", "the mail of a part, as `apply` takes them"},
    END,
};
static const struct usage_opt o_writeback[] = {
    {"--to TARGET", "the tree to change"},
    {"--approve DIGEST", "the digest the operator read (as diff prints it)"},
    WB_SOURCE_FLAGS,
    END,
};
static const struct usage_opt o_apply_set[] = {
    {"DIR", "an exported set, or the review's --out holding one"},
    {"--to TARGET", "the tree to change; with --commit, the repository (its worktree, its .git "
                    "or a bare one)"},
    {"--approve DIGEST", "the digest the operator read (as summary.txt or diff prints it, with "
                         "or without sha256:; the whole set's, also for a part)"},
    {"--only PATH", "apply only the changes PATH names: a path (a directory: all under it) or a "
                    "glob ('*' within a name; with \"**\" across); repeatable"},
    {"--exclude PATH", "leave out what PATH names (as --only); repeatable. A part that would "
                       "leave a broken tree (a file without its new directory, a directory "
                       "removed while something under it stays, half of a rename) is refused"},
    {"--commit", "write a new commit on the commit the set was made on, on a new branch, into "
                 "the repository's object store; the worktree, index, HEAD and stash are not "
                 "touched. Prints \"BRANCH COMMIT\""},
    {"--branch NAME", "with --commit: the branch (default revrun/REVIEW-ID); refused if it "
                      "exists"},
    {"--author \"NAME <EMAIL>\"", "with --commit: the author (default: user.name and "
                                  "user.email of the repository's config)"},
    {"--committer \"NAME <EMAIL>\"", "with --commit: the committer (default: the config's, "
                                     "else the author)"},
    END,
};
static const struct usage_opt o_review[] = {
    {"--lower DIR", "the checkout"},
    {"--out DIR", "where the change set goes"},
    {"--timeout S", "wall-clock limit: seconds, or a number with m, h or d"},
    {"--bundle DIR", "a config to use instead of the default spec"},
    {"--id ID", "the container's ID"},
    {"--quiet", "no phase lines on stderr (the agent's lines stay)"},
    {"--json", "stderr as JSON lines: phases, the agent's lines, messages"},
    AGENT_FLAGS,
    END,
};
static const struct usage_opt o_activity[] = {
    {"--summary", "programs by count and requests by method, path and status, with what the "
                  "record's caps left out"},
    END,
};
static const struct usage_opt o_sweep[] = {
    {"--older-than DURATION", "only what is at least this old"},
    {"--exports DIR", "also delete the change sets exported under DIR (each a directory holding "
                      "manifest.json) past their retention: older than --older-than, which "
                      "it needs"},
    END,
};
static const struct usage_opt o_broker[] = {
    {"--socket PATH", "where the relay connects"},
    {"--upstream URL", "the model endpoint"},
    {"--credential-file F, --credential-env VAR", "the secret, read on the host"},
    {"--header NAME, --header-prefix TEXT", "how the secret is sent"},
    {"--allow PREFIX", "allowed path prefixes (repeatable)"},
    {"--ca-file F", "trust anchors"},
    {"--idle-timeout S, --max-conns N", "bounds"},
    END,
};

/* common/exitcode.h's table, as --help and the man page print it. */
struct exit_row {
    int code;
    const char *who, *text;
};
#define EXIT_ROW(name, code, who, text) {code, who, text},
static const struct exit_row exit_rows[] = {RR_EXIT_CODES(EXIT_ROW)};
#undef EXIT_ROW
static const char exit_note[] =
    "The engine verbs (create, start, kill, delete, state, exec, ps, pause, resume, update) "
    "report every failure as 1, as runc does. run, and exec without --detach, exit with the "
    "process's own status once it ran (128+N for signal N).";

static const struct usage_cmd commands[] = {
    {"spec", "[OPTIONS]", "write a default hardened config.json to stdout", o_spec, NULL},
    {"create", "[OPTIONS] ID", "set the container up; its process waits for start", o_create,
     NULL},
    {"start", "ID", "let the created container's process run", o_none, NULL},
    {"state", "ID", "the OCI state JSON (with rootfs, annotations, owner)", o_none, NULL},
    {"kill", "[--all] ID [SIGNAL]", "signal the container's process (default SIGTERM)", o_kill,
     "A stopped container answers \"container not running\" (exit 1)."},
    {"delete", "[--force] ID", "remove the container: processes, mounts, cgroup, state", o_destroy,
     "A missing container answers \"container does not exist\" (exit 1) unless --force. "
     "Alias: destroy."},
    {"destroy", "[--force] ID", "the same as delete, but a missing container is no error",
     o_destroy, NULL},
    {"run", "[OPTIONS] ID | --lower DIR [OPTIONS] -- CMD ARGS...",
     "create, start and wait; exits with the process's status", o_run, NULL},
    {"exec", "[OPTIONS] ID [CMD ARGS...]",
     "run one more process inside the container",
     o_exec,
     "The process joins the container's namespaces (through a pidfd of its init), its cgroup "
     "and its confinement: the same seccomp floor and filter, no_new_privs, Landlock where the "
     "container has it, its rlimits, no capability the container lacks, only fds 0-2 (and "
     "--preserve-fds). Without --detach, revrun waits and exits with the process's status; when "
     "the process could not be started it exits 255, as runc does."},
    {"ps", "[--format table|json] ID", "the container's processes", o_ps, NULL},
    {"pause", "ID", "freeze every process of the container (cgroup freezer v1 or v2)", o_none,
     "The status reads \"paused\" until resume."},
    {"resume", "ID", "thaw a paused container", o_none, NULL},
    {"update", "[OPTIONS] ID", "change the container's cgroup limits", o_update, NULL},
    {"features", "", "what this revrun supports, as runtime-spec's features.json", o_none, NULL},
    {"list", "[--quiet] [--format table|json]", "the containers under the state root", o_list,
     NULL},
    {"check", "[--bundle DIR] [--json]", "what this host can enforce; non-zero if the config can't be",
     o_check, NULL},
    {"diff", "[OPTIONS] ID | DIR | [OPTIONS] --lower DIR --upper DIR --format F",
     "the vetted change set, or why it is refused", o_diff,
     "Exit: 0 accepted (the digest is printed), 5 refused (the reasons, one a path), 1 an error, "
     "2 a bad command line."},
    {"export", "[OPTIONS] ID DIR | [OPTIONS] --lower DIR --upper DIR --format F DIR | DIR "
               "--format mbox",
     "vet, then write DIR/manifest.json and DIR/blobs/ (the change set) and print its digest; "
     "or an exported DIR as a mail for git am",
     o_export,
     "Exit: 0 exported, 5 refused (nothing written), 1 an error, 2 a bad command line (or a "
     "part that names nothing or would leave a broken tree)."},
    {"apply", "DIR --to TARGET --approve DIGEST [--only P]... [--exclude P]... [--commit ...]",
     "all or nothing onto TARGET, or as a commit", o_apply_set,
     "DIR is an exported set or the review's --out holding one. Every blob's hash and every "
     "touched path's base hash are checked again; no symlink in TARGET is followed and nothing "
     "is written under .git. On any failure TARGET is left as it was; an apply killed half way "
     "is rolled back by sweep or by the next apply onto TARGET, from its journal in the state "
     "root. A TARGET that already holds the set is left alone (\"already applied\", exit 0). "
     "Run as root, a changed path keeps its owner and a new one gets its directory's. A set "
     "made on a git checkout records the commit it was made on: apply onto a tree at another "
     "commit still checks every touched path's base and names that commit; --commit needs the "
     "repository to hold it. Exit: 0 applied (or already applied), 7 --approve is not the "
     "digest, 6 TARGET no longer holds the base (with --commit: REPO lacks the base commit or "
     "a path's base, the branch exists or is in the way), nothing written either way; 1 an "
     "error (TARGET restored, no branch made); 2 a bad command line, or a part that names "
     "nothing or would leave a broken tree."},
    {"writeback", "[OPTIONS] (ID | --lower DIR --upper DIR --format F) --to TARGET --approve DIGEST",
     "export + apply from a live bundle (or a bare pair), no export directory", o_writeback,
     "Exit: as apply's, and 5 when vetting refuses the set."},
    {"review", "--lower DIR --out DIR [OPTIONS] -- CMD ARGS...",
     "the CI job: bundle, run, vet, export, destroy", o_review,
     "OUT gets result.json, summary.txt (with the digest to approve), report.json, agent.log "
     "and, when accepted, changeset/ and changeset.patch; activity.jsonl (what the agent ran "
     "and requested). Each phase is one 'revrun| ' line on "
     "stderr (--quiet: none; --json: JSON lines). Under sudo, OUT goes to SUDO_UID. "
     "Exit: 0 accepted (or no change), 1 the agent failed or "
     "the job was cancelled, 2 a bad command line (also --out inside --lower or the reverse, "
     "or an --out holding results), 3 the sandbox could not be set up or a library a later "
     "stage needs is missing (the agent did not run), 4 timed out, 5 refused, 8 the agent ran "
     "but vetting, exporting or tearing down failed."},
    {"activity", "[--summary] ID",
     "what the agent executed and requested, recorded by revrun outside the sandbox", o_activity,
     "One JSON object a line: the caps first, then each exec (time, pid and parent pid as seen "
     "in the container, cwd, path, argv, every text escaped, what was cut counted), each exit, "
     "each request through the egress broker (method, path without its query, status, bytes "
     "each way, duration, whether the credential went with it; never a header or a body), and "
     "a last line with what the caps left out. `review` keeps it as OUT/activity.jsonl."},
    {"sweep", "[--older-than DURATION] [--exports DIR]", "clean what crashed runs left", o_sweep,
     "Removes the processes, cgroups, mounts and state of containers whose monitor is gone, "
     "frees their host ids, rolls back an apply killed half way from its journal and removes "
     "the shadow repository of a vet that crashed. DURATION: N followed by s, m, h or d."},
    {"broker", "--socket PATH --upstream URL (--credential-file F | --credential-env VAR)",
     "the egress credential broker alone", o_broker, NULL},
};

const struct usage_cmd *usage_commands(size_t *n)
{
    *n = sizeof(commands) / sizeof(commands[0]);
    return commands;
}

const struct usage_opt *usage_global_options(void)
{
    return global_opts;
}

const struct usage_cmd *usage_find(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* A flag wider than its column gets the text on the next line, so that a
 * reader (and integration/docs_check.py) can always tell the flag from the
 * text by the run of spaces between them. */
static void print_opts(FILE *out, const struct usage_opt *o)
{
    for (; o->flag != NULL; o++) {
        if (strlen(o->flag) > 27)
            fprintf(out, "  %s\n  %-28s %s\n", o->flag, "", o->text);
        else
            fprintf(out, "  %-28s %s\n", o->flag, o->text);
    }
}

void usage_print_all(FILE *out)
{
    fputs("usage: revrun [GLOBAL OPTIONS] COMMAND [ARGS...]\n\nglobal options:\n", out);
    print_opts(out, global_opts);
    fputs("\ncommands:\n", out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\nexit status (one table; in brackets, the commands that return the code):\n", out);
    for (size_t i = 0; i < sizeof(exit_rows) / sizeof(exit_rows[0]); i++)
        fprintf(out, "  %-3d  %s [%s]\n", exit_rows[i].code, exit_rows[i].text, exit_rows[i].who);
    fprintf(out, "  %s\n", exit_note);
    fputs("\n`revrun COMMAND --help` lists a command's options; `man revrun` has it all.\n", out);
}

void usage_print_cmd(FILE *out, const struct usage_cmd *c)
{
    fprintf(out, "usage: revrun %s %s\n\n%s\n", c->name, c->synopsis, c->summary);
    if (c->opts[0].flag != NULL) {
        fputs("\noptions:\n", out);
        print_opts(out, c->opts);
    }
    if (c->notes != NULL)
        fprintf(out, "\n%s\n", c->notes);
}

/* roff: a backslash is \e, a minus is \-, and a line must not start with a
 * dot or an apostrophe. */
static void roff(FILE *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s != '\0'; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
    }
}

static void man_opts(FILE *out, const struct usage_opt *o)
{
    for (; o->flag != NULL; o++) {
        fputs(".TP\n.B ", out);
        roff(out, o->flag);
        fputc('\n', out);
        roff(out, o->text);
        fputc('\n', out);
    }
}

static void man_exit_status(FILE *out)
{
    fputs(".SH EXIT STATUS\nOne table for every command; a command returns only the codes that "
          "can happen to it (in parentheses: which).\n",
          out);
    for (size_t i = 0; i < sizeof(exit_rows) / sizeof(exit_rows[0]); i++) {
        fprintf(out, ".TP\n.B %d\n", exit_rows[i].code);
        roff(out, exit_rows[i].text);
        fputs(" (", out);
        roff(out, exit_rows[i].who);
        fputs(")\n", out);
    }
    fputs(".PP\n", out);
    roff(out, exit_note);
    fputc('\n', out);
}

void usage_print_man(FILE *out)
{
    fputs(".TH REVRUN 1 \"\" \"revrun\" \"User Commands\"\n.SH NAME\nrevrun \\- run an AI "
          "review agent over a read\\-only checkout and export a vetted change set; an OCI "
          "runtime for engines\n.SH SYNOPSIS\n.B revrun\n[\\fIGLOBAL OPTIONS\\fR] "
          "\\fICOMMAND\\fR [\\fIARGS\\fR...]\n.SH DESCRIPTION\nrevrun runs one untrusted "
          "program, an AI code agent, over a read\\-only checkout in an ephemeral sandbox (user, "
          "mount, pid, network, ipc, uts and cgroup namespaces, seccomp, Landlock, no "
          "capabilities, no_new_privs, limits), vets what it wrote and hands back only a change "
          "set bound to a digest, which an operator approves and applies all or nothing. It is "
          "also an OCI runtime that containerd, podman and docker can name. The sections below "
          "are the same table that \\-\\-help prints.\n.SH GLOBAL OPTIONS\n",
          out);
    man_opts(out, global_opts);
    fputs(".SH COMMANDS\n", out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        const struct usage_cmd *c = &commands[i];
        fputs(".SS ", out);
        roff(out, c->name);
        fputs("\n.B revrun ", out);
        roff(out, c->name);
        fputs("\n", out);
        if (c->synopsis[0] != '\0') {
            roff(out, c->synopsis);
            fputs("\n", out);
        }
        fputs(".PP\n", out);
        roff(out, c->summary);
        fputc('\n', out);
        man_opts(out, c->opts);
        if (c->notes != NULL) {
            fputs(".PP\n", out);
            roff(out, c->notes);
            fputc('\n', out);
        }
    }
    man_exit_status(out);
    fputs(".SH FILES\n/run/revrun, $XDG_RUNTIME_DIR/revrun, /tmp/revrun\\-UID (without "
          "XDG_RUNTIME_DIR): the state root. "
          "/etc/revrun/policy.json: host ids and engine policy. /run/revrun\\-ids: the held host "
          "ids. /usr/share/revrun/agents (BINDIR/../share/revrun/agents): agent presets, which "
          "override the ones built in.\n"
          ".SH ENVIRONMENT\nREVRUN_FUSE_OVERLAYFS: the fuse\\-overlayfs binary (an absolute "
          "path). XDG_RUNTIME_DIR: the state root's parent, rootless.\n"
          ".SH SEE ALSO\nrunc(8), crun(1); README.md, docs/ and THREAT_MODEL.md in revrun's "
          "source.\n",
          out);
}

bool usage_wants_help(int argc, char **argv)
{
    bool stop_at_operand = strcmp(argv[0], "exec") == 0;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return true;
        if (stop_at_operand && argv[i][0] != '-' && !(i > 1 && argv[i - 1][0] == '-' &&
                                                      argv[i - 1][1] != '\0' &&
                                                      strchr(argv[i - 1], '=') == NULL &&
                                                      strcmp(argv[i - 1], "-d") != 0 &&
                                                      strcmp(argv[i - 1], "--detach") != 0 &&
                                                      strcmp(argv[i - 1], "-t") != 0 &&
                                                      strcmp(argv[i - 1], "--tty") != 0))
            return false;
    }
    return false;
}
