#!/usr/bin/env python3
"""docs/architecture.md is a map of the tree: every file or directory it
names in backticks must exist, so the map cannot go stale when files move.

A name counts as found when a tracked file's path ends with it (the tables
name files relative to the directory they describe); `x.[ch]` needs x.c or
x.h. System paths (/dev, /var/...), commands, globs and placeholders
(<target>) are not file names and are skipped.

  test-architecture-paths.py SOURCE_ROOT      exit 0 when every name exists
"""
import os
import re
import subprocess
import sys

FILE_RE = re.compile(r"^[\w./+-]+(\.(c|h|py|md|ini|sh|build|txt)|\.\[ch\]|/)$")


def names(text):
    for tok in re.findall(r"`([^`\n]+)`", text):
        if tok.startswith("/") or " " in tok or "*" in tok or "<" in tok:
            continue
        if tok.startswith("./") or tok in (".c", ".h"):
            continue
        if FILE_RE.match(tok):
            yield tok


def exists(name, files, dirs):
    if name.endswith("/"):
        d = name.rstrip("/")
        return any(x == d or x.endswith("/" + d) for x in dirs)
    if name.endswith(".[ch]"):
        stem = name[:-5]
        return exists(stem + ".c", files, dirs) or exists(stem + ".h", files,
                                                          dirs)
    return any(f == name or f.endswith("/" + name) for f in files)


def tracked(root):
    """The tracked files, or (no git, or not a checkout: a copied tree)
    every file outside build directories."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], check=True,
                             capture_output=True, text=True).stdout.split()
        if out:
            return out
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []
    for d, subdirs, names_ in os.walk(root):
        subdirs[:] = [s for s in subdirs
                      if not s.startswith((".git", "build", "out"))]
        rel = os.path.relpath(d, root)
        files += [n if rel == "." else f"{rel}/{n}" for n in names_]
    return files


def main():
    root = sys.argv[1]
    files = tracked(root)
    dirs = set()
    for f in files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    # generated, not tracked: written by tests/bench/make-performance
    generated = {"docs/performance.md"}
    with open(f"{root}/docs/architecture.md", encoding="utf-8") as fh:
        text = fh.read()
    missing = sorted({n for n in names(text)
                      if n not in generated and not exists(n, files, dirs)})
    # the checker itself must catch a name that is not there
    assert not exists("no-such-file-here.c", files, dirs)
    assert exists("gst/rtpcc/", files, dirs)
    for n in missing:
        print(f"docs/architecture.md names {n}, which is not in the tree")
    print(f"{len(set(names(text)))} names checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
