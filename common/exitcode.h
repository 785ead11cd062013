/* The exit statuses of every revrun command: one table. A code means one
 * thing whichever command returns it; a command returns only the codes
 * that can happen to it. `revrun --help`, the man page (both rendered from
 * this list by runtime/cli/usage.c) and docs/exit-codes.md print it.
 *
 * The engine verbs (create, start, kill, delete, state, exec, ps, pause,
 * resume, update) report every failure as 1, as runc does: containerd and
 * conmon read zero or not. `run` and `exec` without --detach exit with the
 * process's own status (128+N for signal N) once it ran. */
#ifndef REVRUN_COMMON_EXITCODE_H
#define REVRUN_COMMON_EXITCODE_H

/* X(name, code, who, meaning) */
#define RR_EXIT_CODES(X)                                                                           \
    X(RR_EXIT_OK, 0, "all", "success (review: the change set was accepted and exported, or "      \
                            "the agent changed nothing)")                                          \
    X(RR_EXIT_ERROR, 1, "all",                                                                     \
      "the command failed; the message says why (review: the agent exited non-zero, was "          \
      "killed, or the job was cancelled)")                                                         \
    X(RR_EXIT_USAGE, 2, "all",                                                                     \
      "a bad command line: unknown command or option, a missing or extra operand, a bad value, "   \
      "conflicting paths; nothing was done")                                                       \
    X(RR_EXIT_SETUP, 3, "review",                                                                  \
      "the sandbox could not be set up (or a library a later stage needs is missing): the agent "  \
      "was not started")                                                                           \
    X(RR_EXIT_TIMEOUT, 4, "review", "the agent ran out of time and the container was killed")     \
    X(RR_EXIT_REFUSED, 5, "diff export writeback review",                                   \
      "the change set was refused by vetting (the reasons are printed, and in summary.txt)")       \
    X(RR_EXIT_CONFLICT, 6, "apply writeback",                                                      \
      "TARGET no longer holds the base the change set was made on: nothing was written")           \
    X(RR_EXIT_DIGEST, 7, "apply writeback",                                                        \
      "--approve is not the digest of this change set: nothing was written")                       \
    X(RR_EXIT_AFTER_AGENT, 8, "review",                                                            \
      "the agent ran, then vetting, exporting or tearing down failed (result.json says which)")    \
    X(RR_EXIT_EXEC, 255, "exec", "the process could not be started (runc's status)")

#define RR_EXIT_ENUM(name, code, who, text) name = code,
enum rr_exit_code { RR_EXIT_CODES(RR_EXIT_ENUM) };
#undef RR_EXIT_ENUM

#endif
