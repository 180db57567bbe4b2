#!/usr/bin/env python3
"""Runs every command block of README.md and docs/*.md, as written.

A command block is a fenced block whose language is `sh`. Every other fenced
block must name its language (`cpp`, `python`, `text`...): that is how a block
that is not a command is marked. An indented (unfenced) code block is an error,
so that no block's intent is left to guess.

The line right before a fence may hold a marker:
    <!-- docs-test: needs NAME [NAME...] -->  optional components (cmake/DriOptional.cmake)
                                              the block needs; skipped, with the
                                              reason, when one is missing
    <!-- docs-test: skip REASON -->           never run here, for the reason given

Each block runs with bash -e -o pipefail in a scratch directory that looks like
the source tree: symbolic links to its top-level entries, `build` linked to the
build under test, and `docs/` copied (commands that redraw docs/images write
into the copy). HOME is a scratch directory too, so `--prefix ~/...` installs
vanish with it. DRI_BENCH_MAX_REPS=3 caps dri-bench's --reps and --warmup:
the commands are run to prove they work, not timed. The source tree must be
unchanged afterwards, and README.md's table of optional components must have
a row for each component.

usage: run_commands.py SOURCE_DIR BUILD_DIR [FILE.md...]
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(needs|skip)\s+(.*?)\s*-->\s*$")
LIST_ITEM = re.compile(r"^\s*([-*+]|\d+\.)\s")
TIMEOUT_S = 900


class Block:
    def __init__(self, path, line, lang, text, marker):
        self.path, self.line, self.lang, self.text, self.marker = path, line, lang, text, marker

    def where(self):
        return f"{self.path}:{self.line}"


def parse(path, rel):
    """The fenced blocks of one file, and the errors (unmarked code blocks)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, errors = [], []
    i, in_list = 0, False
    while i < len(lines):
        line = lines[i]
        m = FENCE.match(line)
        if m:
            start, lang = i, m.group(2)
            marker = MARKER.match(lines[i - 1]) if i > 0 else None
            i += 1
            body = []
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i])
                i += 1
            if not lang:
                errors.append(f"{rel}:{start + 1}: a fenced block without a language: "
                              "write ```sh for a command, ```text (or its language) otherwise")
            blocks.append(Block(rel, start + 1, lang, "\n".join(body), marker))
            i += 1
            continue
        if LIST_ITEM.match(line):
            in_list = True
        elif line.strip() and not line.startswith(" "):
            in_list = False
        if (line.startswith("    ") and line.strip() and not in_list and i > 0
                and not lines[i - 1].strip()):
            errors.append(f"{rel}:{i + 1}: an indented code block: fence it, ```sh to run it as "
                          "a command, ```text (or its language) otherwise")
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                i += 1
            continue
        i += 1
    return blocks, errors


def components(build):
    """Optional components of the build: name -> (state, package)."""
    table = {}
    path = os.path.join(build, "optional-components.txt")
    with open(path, encoding="utf-8") as f:
        next(f)
        for row in f:
            name, state, rest = row.split(None, 2)
            table[name] = (state, rest.split(":", 1)[0])
    return table


def scratch_tree(source, build, root):
    """A directory that looks like the source tree, writes kept inside it."""
    work = os.path.join(root, "tree")
    os.mkdir(work)
    for entry in os.listdir(source):
        if entry in ("build", "docs", ".git"):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(work, entry))
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    shutil.copytree(os.path.join(source, "docs"), os.path.join(work, "docs"))
    home = os.path.join(root, "home")
    os.mkdir(home)
    return work, home


def tree_state(source):
    """What git sees in the source tree (None without git)."""
    if not os.path.isdir(os.path.join(source, ".git")) and not os.path.isfile(
            os.path.join(source, ".git")):
        return None
    out = subprocess.run(["git", "-C", source, "status", "--porcelain", "--untracked-files=all"],
                         capture_output=True, text=True, check=False)
    return out.stdout if out.returncode == 0 else None


def skip_reason(block, have):
    kind, arg = block.marker.groups()
    if kind == "skip":
        return arg
    missing = []
    for name in arg.split():
        if name not in have:
            return f"names an unknown component '{name}'"
        state, package = have[name]
        if state != "found":
            missing.append(f"{name} ({state}; Debian package {package})")
    return "needs " + ", ".join(missing) if missing else None


def table_errors(readme, have):
    """README.md's table of optional components names every component."""
    text = open(readme, encoding="utf-8").read()
    return [f"README.md: the table of optional components has no row '| {name} |'"
            for name in have if f"\n| {name} |" not in text]


def run(block, work, home):
    # Benchmarks run a few repetitions: this test proves that each command
    # works as written; their timings are not read (dri-bench says the run
    # is capped).
    env = dict(os.environ, HOME=home, PYTHONDONTWRITEBYTECODE="1", DRI_BENCH_MAX_REPS="3")
    started = time.monotonic()
    try:
        proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.text], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=TIMEOUT_S, check=False)
        output, rc = proc.stdout, proc.returncode
    except subprocess.TimeoutExpired as e:
        output, rc = (e.stdout or b"").decode(errors="replace"), f"timeout after {TIMEOUT_S} s"
    return rc, output, time.monotonic() - started


def main():
    source, build = sys.argv[1], sys.argv[2]
    files = sys.argv[3:] or ["README.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
    have = components(build)
    blocks, errors = [], []
    for rel in files:
        b, e = parse(os.path.join(source, rel), rel)
        blocks += [x for x in b if x.lang == "sh"]
        errors += e
    errors += table_errors(os.path.join(source, "README.md"), have)
    before = tree_state(source)
    ran = skipped = failed = 0
    with tempfile.TemporaryDirectory(prefix="dri-docs-") as root:
        work, home = scratch_tree(source, build, root)
        for block in blocks:
            reason = skip_reason(block, have) if block.marker else None
            if reason:
                print(f"SKIPPED {block.where()}: {reason}")
                skipped += 1
                continue
            rc, output, seconds = run(block, work, home)
            ran += 1
            if rc == 0:
                print(f"ran {block.where()} ({seconds:.1f} s)")
            else:
                failed += 1
                print(f"FAILED {block.where()} (exit {rc}):\n{block.text}\n--- output ---\n"
                      f"{output[-4000:]}\n---")
    after = tree_state(source)
    if before is not None and after != before:
        errors.append("the commands changed the source tree (git status before and after differ):\n"
                      + after)
    for e in errors:
        print(f"ERROR {e}")
    print(f"docs: {ran} command blocks ran, {skipped} skipped, {failed} failed, "
          f"{len(errors)} errors")
    return 1 if failed or errors else 0


if __name__ == "__main__":
    sys.exit(main())
