#!/usr/bin/env python3
"""Code, tests and docs stand alone: no text points at notes a reader does
not have (requirement labels, numbered note files, "anchors", a sibling
"shared" checkout). Explain the idea in place and cite the public paper or
RFC instead.

Scans the tracked text files under gst/, plugins/, tests/, docs/ and
README.md (all files under those paths when SOURCE_ROOT is not a git
checkout) and fails on any match, listing file:line.

Usage: test-no-private-refs.py SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

SCOPE = ("gst", "plugins", "tests", "docs", "README.md")

# Each pattern with a line it must catch; SAFE lines must pass all of them.
PATTERNS = [
    (r"\bseeds?[ _-]?0\d\d\b", "the timer error of seed 002 §1.12a"),
    (r"\bseed-\d{3}\b", "see seed-000-jero.md"),
    (r"\banchors\b", "(anchors §1.7)"),
    (r"\bDESIGN\.md\b", "as DESIGN.md says"),
    (r"\.\./shared\b|\bshared/research\b", "see ../shared/research/x.md"),
    (r"\bresearch/", "configuration of research/gcc-peer.md"),
    (r"\bresearch (notes|extraction)\b", "(research extraction Part A.1.9)"),
    (r"\bR-[A-Z]{2,6}-\d+\b", "stalls from congestion (R-PACE-7)"),
    (r"\bFBRA-C\d+", "(FBRA-C15)"),
    (r"\binterface I\d+\b|\(I\d+\)", "the upstream event (interface I3)"),
    (r"\b\d{3}:L\d+\b", "/* 001:L177: early report */"),
]
SAFE = [
    "two runs with the same seed give identical logs, seed 1 and seed 156",
    "rtpcc-matrix --describe short-rtt [--seed 10001]",
    "RFC 3550 A.1-style probation; draft-ietf-rmcat-gcc-02 §5.3",
    "Singh's thesis, Publication VII; RFC 8867 §5.1",
    "the research that led to the FBRA paper",
]

# These two files hold the patterns themselves (this one, and the check
# that gst-inspect texts stay clean), so they are not scanned.
SELF = {"tests/docs/test-no-private-refs.py", "tests/check/elements_inspect.c"}


def tracked(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--"]
                             + list(SCOPE), check=True,
                             capture_output=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top in SCOPE:
            p = os.path.join(root, top)
            if os.path.isfile(p):
                files.append(top)
            for d, _, names in os.walk(p):
                files += [os.path.relpath(os.path.join(d, n), root)
                          for n in names]
        return files


def main():
    root = sys.argv[1]
    regexes = [re.compile(p, re.IGNORECASE) for p, _ in PATTERNS]
    ok = True
    for rx, (p, example) in zip(regexes, PATTERNS):
        if not rx.search(example):
            print(f"self-test: /{p}/ does not match {example!r}")
            ok = False
    for line in SAFE:
        for rx in regexes:
            if rx.search(line):
                print(f"self-test: /{rx.pattern}/ matches safe {line!r}")
                ok = False
    if not ok:
        return 1

    files = [f for f in tracked(root) if f not in SELF]
    hits = 0
    for rel in files:
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as fh:
                text = fh.read()
        except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
            continue                # images, data files
        for n, line in enumerate(text.splitlines(), 1):
            for rx in regexes:
                if rx.search(line):
                    print(f"{rel}:{n}: /{rx.pattern}/: {line.strip()}")
                    hits += 1
                    break
    print(f"{len(files)} files scanned, {hits} references to private notes")
    return 1 if hits or not files else 0


if __name__ == "__main__":
    sys.exit(main())
