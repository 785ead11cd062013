#!/usr/bin/env python3
"""The documents cannot drift: checks run by integration/docs.bats.

  docs_check.py threat REPO            every file:function and every test that
                                       THREAT_MODEL.md names exists
  docs_check.py flags REPO REVRUN      every revrun command and flag the
                                       documents mention is one --help knows
  docs_check.py documented REPO REVRUN every command and flag --help knows is
                                       in the documents
  docs_check.py cli REPO REVRUN        every long option runtime/cli parses is
                                       in --help
  docs_check.py man REPO REVRUN        the man page has a section per command
                                       and every flag of it
  docs_check.py links REPO             relative links in the documents resolve
  docs_check.py ids REPO               no issue numbers or commit ids in the
                                       user documents

Each prints one line per problem and exits 1 when there is any.
"""
import glob
import os
import re
import subprocess
import sys

# Flags of other programs that the documents show beside revrun's (in the
# engine, CI, agent and git examples). A flag not here and not in any
# `revrun ... --help` fails the check.
FOREIGN_FLAGS = {
    # docker / podman / ctr / kubectl / nsenter / systemd-run
    "--cap-add", "--security-opt", "--privileged", "--device", "--runtime", "--rm",
    "--runc-binary", "--mount", "--annotation", "--cgroup-manager", "--cgroupns",
    "--uidmap", "--userns", "--scope", "--uid", "--gid", "--network", "--name", "--rootfs",
    # the agents' command lines
    "--dangerously-skip-permissions", "--allowedTools", "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox", "--sandbox", "--yolo", "--prefix",
    # git, apt, sh, make, bats
    "--depth", "--no-install-recommends", "--tap", "--global", "--propagation",
    "--abbrev", "--cached", "--stat", "--oneline", "--no-verify",
    # the example agent's own flag, and other tools the security pages name:
    # prlimit, git apply/cat-file/init/credential, unshare, bwrap, docker
    "--review", "--user", "--as", "--check", "--batch-all-objects", "--bare", "--file",
    "--fork", "--mount-proc", "--proc", "--ulimit",
    # revrun's own internal relay (not a user command)
    "--listen",
}

# docs/architecture.md is the design, ahead of the code in places: flags it
# names before --help knows them. Once --help knows one, the check fails
# until it is taken off this list.
PLANNED_FLAGS = set()

# Hashes of other projects' commits the documents name on purpose (a
# measurement's exact upstream version), not revrun's.
UPSTREAM_COMMITS = {"260e151"}  # opencontainers/runtime-tools

DOC_GLOBS = ["README.md", "THREAT_MODEL.md", "docs/*.md", "docs/**/*.md"]
USER_DOC_GLOBS = DOC_GLOBS


def doc_files(repo, globs=DOC_GLOBS):
    seen = []
    for g in globs:
        for p in sorted(glob.glob(os.path.join(repo, g), recursive=True)):
            if p not in seen and os.path.isfile(p):
                seen.append(p)
    return seen


def rel(repo, p):
    return os.path.relpath(p, repo)


# ---------------------------------------------------------------- help text

class Help:
    """What `revrun --help` and `revrun CMD --help` say."""

    def __init__(self, revrun):
        self.revrun = revrun
        top = self._run(["--help"])
        self.globals = set()
        self.commands = []
        section = None
        for line in top.splitlines():
            if line.endswith(":") and not line.startswith(" "):
                section = line
                continue
            if section == "global options:" and line.startswith("  -"):
                self.globals |= flags_of(line)
            elif section == "commands:" and line.startswith("  "):
                self.commands.append(line.split()[0])
        self.flags = {}
        for c in self.commands:
            text = self._run([c, "--help"])
            fl = set()
            for line in text.splitlines():
                if line.startswith("  -"):
                    fl |= flags_of(line)
            self.flags[c] = fl

    def _run(self, args):
        r = subprocess.run([self.revrun] + args, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("revrun %s: exit %d" % (" ".join(args), r.returncode))
        return r.stdout

    def all_flags(self):
        out = set(self.globals) | {"--help", "-h"}
        for f in self.flags.values():
            out |= f
        return out


def flags_of(option_line):
    """The flags of one option line: the part before the run of spaces."""
    head = re.split(r"\s{2,}", option_line.strip(), maxsplit=1)[0]
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][A-Za-z0-9-]*)", head))


# ------------------------------------------------------------- threat model

FUNC_REF = re.compile(r"([A-Za-z0-9_./-]+\.(?:c|h|sh|bash|py)):([A-Za-z_][A-Za-z0-9_]*)")
TEST_TOKEN = re.compile(r'([A-Za-z0-9_./-]+\.bats)|((?:tests/)?test_[A-Za-z0-9_]+\.c):'
                        r'([A-Za-z_][A-Za-z0-9_]*)|"([^"]+)"')


def table_rows(path):
    """(line number, cells) of every body row of every table."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells):
                continue
            if cells[0].lower() in ("property", "who", "area"):
                continue
            rows.append((n, cells))
    return rows


def defines(path, name):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if path.endswith((".c", ".h")):
        for m in re.finditer(r"^(?:#define\s+%s\(|[^\s#].*?\b%s\(|%s\()(.*)$"
                             % (name, name, name), text, re.M):
            if not m.group(0).rstrip().endswith(";"):
                return True
        return False
    if path.endswith((".sh", ".bash")):
        return re.search(r"^(?:function\s+)?%s\s*\(\)" % name, text, re.M) is not None
    return re.search(r"^\s*def\s+%s\(" % name, text, re.M) is not None


def defined_in(repo, name):
    """A hint after a restructure: where name is defined now."""
    hits = []
    for p in glob.glob(os.path.join(repo, "**", "*.c"), recursive=True):
        if "/build" not in p and defines(p, name):
            hits.append(rel(repo, p))
    return " (defined in %s)" % ", ".join(sorted(hits)) if hits else ""


def bats_names(repo, suite):
    path = os.path.join(repo, "integration", os.path.basename(suite))
    if not os.path.isfile(path):
        return None
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r'\s*@test\s+"(.*)"\s*\{\s*$', line)
            if m:
                names.append(m.group(1).replace('\\"', '"'))
    return names


def c_tests(repo, path):
    p = path if path.startswith("tests/") else os.path.join("tests", path)
    p = os.path.join(repo, p)
    if not os.path.isfile(p):
        return None
    with open(p, encoding="utf-8") as f:
        return set(re.findall(r"^TEST\(([A-Za-z0-9_]+)\)", f.read(), re.M))


def source_file(repo, f):
    """THREAT_MODEL names a file by its last folders ("profile/mounts.c"
    for runtime/confine/profile/mounts.c): the one source file whose path
    ends so. (path, None), or (None, why not)."""
    if os.path.isfile(os.path.join(repo, f)):
        return os.path.join(repo, f), None
    hits = [p for p in glob.glob(os.path.join(repo, "**", os.path.basename(f)), recursive=True)
            if "/build" not in p and rel(repo, p).endswith("/" + f)]
    if len(hits) == 1:
        return hits[0], None
    if not hits:
        return None, "no such file"
    return None, "names %d files (%s): give more of its path" % (
        len(hits), ", ".join(sorted(rel(repo, h) for h in hits)))


def check_threat(repo):
    problems = []
    path = os.path.join(repo, "THREAT_MODEL.md")
    rows = table_rows(path)
    if not rows:
        problems.append("THREAT_MODEL.md: no table rows")
    for n, cells in rows:
        where = "THREAT_MODEL.md:%d" % n
        if len(cells) != 4:
            problems.append("%s: %d cells, not 4 (property | where | test | breaks)"
                            % (where, len(cells)))
            continue
        refs = FUNC_REF.findall(cells[1].replace("`", ""))
        if not refs:
            problems.append("%s: no file:function in %r" % (where, cells[1]))
        for f, fn in refs:
            fp, why = source_file(repo, f)
            if fp is None:
                problems.append("%s: %s: %s" % (where, f, why))
            elif not defines(fp, fn):
                problems.append("%s: %s: no function %s%s" % (where, f, fn, defined_in(repo, fn)))
        problems += check_test_cell(repo, where, cells[2].replace("`", ""))
    return problems


def check_test_cell(repo, where, cell):
    problems = []
    suite, names, found = None, None, 0
    for m in TEST_TOKEN.finditer(cell):
        if m.group(1):
            suite = m.group(1)
            names = bats_names(repo, suite)
            if names is None:
                problems.append("%s: %s: no such suite" % (where, suite))
        elif m.group(2):
            tests = c_tests(repo, m.group(2))
            found += 1
            if tests is None:
                problems.append("%s: %s: no such test file" % (where, m.group(2)))
            elif m.group(3) not in tests:
                problems.append("%s: %s: no TEST(%s)" % (where, m.group(2), m.group(3)))
        else:
            found += 1
            if suite is None:
                problems.append('%s: "%s": name its suite first (x.bats "...")'
                                % (where, m.group(4)))
            elif names is not None and not any(m.group(4) in t for t in names):
                problems.append('%s: %s has no test named "%s..."' % (where, suite, m.group(4)))
    if found == 0:
        problems.append("%s: no test named in %r" % (where, cell))
    return problems


# --------------------------------------------------------- flags and commands

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
SPAN = re.compile(r"`([^`\n]+)`")
GLOBAL_WITH_ARG = {"--root", "--log", "--log-format"}
SHELL_STOP = {"|", "||", "&&", ";", ">", ">>", "<", "2>&1", "&", "#", "--"}


def code_lines(text):
    """Logical lines of code: fenced blocks (backslash continuations joined)
    and inline code spans."""
    out = []
    for m in FENCE.finditer(text):
        block = m.group(0).split("\n", 1)[1].rsplit("```", 1)[0]
        out += block.replace("\\\n", " ").splitlines()
    out += SPAN.findall(FENCE.sub("", text))
    return out


def revrun_calls(line):
    """(command or None, [global flags], [flags]) for each revrun invocation
    on a line of code."""
    toks = line.replace("`", " ").split()
    calls = []
    for i, t in enumerate(toks):
        if not re.fullmatch(r"(?:[\w./$-]*/)?revrun", t):
            continue
        if i > 0 and toks[i - 1].startswith("-"):
            continue  # another program's argument: podman --runtime /usr/bin/revrun
        j, glob_flags = i + 1, []
        while j < len(toks) and toks[j].startswith("--"):
            name = toks[j].split("=", 1)[0]
            glob_flags.append(name)
            j += 2 if name in GLOBAL_WITH_ARG and "=" not in toks[j] else 1
        cmd = toks[j] if j < len(toks) and re.fullmatch(r"[a-z]+", toks[j]) else None
        flags = []
        if cmd is not None:
            for t2 in toks[j + 1:]:
                if t2 in SHELL_STOP or t2.startswith(("#", ">", "|")):
                    break
                if re.fullmatch(r"--?[A-Za-z][A-Za-z0-9-]*(=.*)?", t2):
                    flags.append(t2.split("=", 1)[0])
        calls.append((cmd, glob_flags, flags))
    return calls


def check_flags(repo, revrun):
    h = Help(revrun)
    known = h.all_flags()
    problems = []
    for p in doc_files(repo):
        text = open(p, encoding="utf-8").read()
        name = rel(repo, p)
        for line in code_lines(text):
            for cmd, gl, fl in revrun_calls(line):
                for g in gl:
                    if g not in h.globals and g not in ("--help", "--man"):
                        problems.append("%s: `%s`: revrun has no global %s" % (name, line.strip(), g))
                if cmd is None:
                    continue
                if cmd not in h.flags:
                    if gl or fl:
                        problems.append("%s: `%s`: revrun has no command %s"
                                        % (name, line.strip(), cmd))
                    continue
                for f in fl:
                    if f not in h.flags[cmd] and f not in h.globals and f not in ("--help", "-h"):
                        problems.append("%s: `%s`: `revrun %s --help` has no %s"
                                        % (name, line.strip(), cmd, f))
        for f in sorted(set(re.findall(r"(?<![\w-])(--[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)",
                                       text))):
            if f in PLANNED_FLAGS and f in known:
                problems.append("%s: --help knows it now: take it off PLANNED_FLAGS" % f)
            if f in PLANNED_FLAGS and name == "docs/architecture.md":
                continue
            if f not in known and f not in FOREIGN_FLAGS:
                problems.append("%s: %s is no flag of revrun's --help (nor a listed foreign one)"
                                % (name, f))
    return problems


def check_documented(repo, revrun):
    h = Help(revrun)
    text = "\n".join(open(p, encoding="utf-8").read() for p in doc_files(repo))
    problems = []
    for c in h.commands:
        if not re.search(r"revrun (?:--root \S+ )?%s\b" % c, text):
            problems.append("command %s: no `revrun %s` in README.md or docs/" % (c, c))
    for c, fl in sorted(h.flags.items()):
        for f in sorted(fl):
            if f.startswith("--") and f not in text:
                problems.append("revrun %s %s: not in README.md or docs/" % (c, f))
    for f in sorted(h.globals):
        if f not in text:
            problems.append("global %s: not in README.md or docs/" % f)
    return problems


def check_cli(repo, revrun):
    h = Help(revrun)
    known = h.all_flags() | {"--man"}
    problems = []
    for p in sorted(glob.glob(os.path.join(repo, "runtime/cli/*.[ch]"))):
        text = open(p, encoding="utf-8").read()
        for name in re.findall(r'\{\s*"([a-z][a-z0-9-]*)",\s*(?:no|required|optional)_argument', text):
            if "--" + name not in known and "--" + name not in FOREIGN_FLAGS:
                problems.append("%s: --%s is parsed but no --help lists it" % (rel(repo, p), name))
    main = open(os.path.join(repo, "runtime/cli/main.c"), encoding="utf-8").read()
    for name in re.findall(r'\{"([a-z]+)",\s*cli_[a-z_]+\}', main):
        if name not in h.commands and name != "relay":
            problems.append("runtime/cli/main.c: command %s is not in revrun --help" % name)
    return problems


def roff_flag(f):
    return f.replace("-", "\\-")


def check_man(repo, revrun):
    h = Help(revrun)
    r = subprocess.run([revrun, "--man"], capture_output=True, text=True)
    man = r.stdout
    problems = [] if r.returncode == 0 else ["revrun --man: exit %d" % r.returncode]
    for c in h.commands:
        m = re.search(r"^\.SS %s\n(.*?)(?=^\.SS |^\.SH |\Z)" % re.escape(c), man, re.M | re.S)
        if m is None:
            problems.append("man page: no section for %s" % c)
            continue
        for f in sorted(h.flags[c]):
            if roff_flag(f) not in m.group(1):
                problems.append("man page, %s: no %s" % (c, f))
    for f in sorted(h.globals):
        if roff_flag(f) not in man:
            problems.append("man page: no global %s" % f)
    return problems


# ------------------------------------------------------------ links and ids

LINK = re.compile(r"\]\(([^)\s]+)\)")


def check_links(repo):
    problems = []
    for p in doc_files(repo, DOC_GLOBS + ["HACKING.md", "*/README.md", "*/*/README.md"]):
        text = FENCE.sub("", open(p, encoding="utf-8").read())
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            if not os.path.exists(os.path.join(os.path.dirname(p), path)):
                problems.append("%s: link to %s: no such file" % (rel(repo, p), target))
    return problems


def check_ids(repo):
    problems = []
    for p in doc_files(repo, USER_DOC_GLOBS):
        for n, line in enumerate(open(p, encoding="utf-8"), 1):
            for m in re.finditer(r"\b(?:issue|review\d*|PR) ?#?\d+\b|\(#\d+\)|\breview\d F\d+\b",
                                 line, re.I):
                problems.append("%s:%d: an issue number: %s" % (rel(repo, p), n, m.group(0)))
            for m in re.finditer(r"(?<![0-9a-f])[0-9a-f]{7,12}(?![0-9a-f])", line):
                w = m.group(0)
                if re.search(r"[a-f]", w) and re.search(r"[0-9]", w) and w not in UPSTREAM_COMMITS:
                    problems.append("%s:%d: a commit id? %s" % (rel(repo, p), n, w))
    return problems


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    what, repo, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    checks = {
        "threat": lambda: check_threat(repo),
        "flags": lambda: check_flags(repo, rest[0]),
        "documented": lambda: check_documented(repo, rest[0]),
        "cli": lambda: check_cli(repo, rest[0]),
        "man": lambda: check_man(repo, rest[0]),
        "links": lambda: check_links(repo),
        "ids": lambda: check_ids(repo),
    }
    if what not in checks:
        sys.exit(__doc__)
    problems = checks[what]()
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
