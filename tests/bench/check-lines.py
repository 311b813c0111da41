#!/usr/bin/env python3
"""Runs one benchmark program in its smoke mode and checks its output:
exit status 0, every stdout line a figure in bench-report.h's format or a
"# " note, and exactly the expected figure names.

  check-lines.py NAME[,NAME...] PROGRAM [ARG...]

SPDX-License-Identifier: LGPL-2.1-or-later
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlines  # noqa: E402


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    expected = sys.argv[1].split(",")
    run = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, text=True,
                         timeout=300)
    sys.stdout.write(run.stdout)
    figures, _, bad = benchlines.parse(run.stdout)
    names = [f["name"] for f in figures]
    problems = []
    if run.returncode != 0:
        problems.append("exit status %d" % run.returncode)
    for line in bad:
        problems.append("not in the line format: %r" % line)
    if names != expected:
        problems.append("figures %s, expected %s" % (names, expected))
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
