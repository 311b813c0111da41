"""The benchmarks' output lines (bench-report.h), parsed in one place for
check-lines.py and make-performance.

SPDX-License-Identifier: LGPL-2.1-or-later
"""
import re

NUM = r"-?[0-9][0-9.]*(?:e[+-]?[0-9]+)?"
LINE = re.compile(
    r"^bench (?P<name>[a-z0-9][a-z0-9-]*): "
    r"ours (?P<ours>" + NUM + r") (?P<unit>\S+), "
    r"baseline (?P<base>" + NUM + r") (?P<bunit>\S+), "
    r"ratio (?P<ratio>" + NUM + r"|-) "
    r"\((?P<goal>goal (?:<=|>=) " + NUM + r"(?: \S+)?: (?P<status>met|missed)"
    r"|no goal)\)"
    r"(?: \[noisy: (?P<noisy>[^\]]+)\])?$")


def parse(text):
    """(figures, notes, bad): figures as dicts in order, notes ("# ..."
    lines without the "# "), and lines that are neither."""
    figures, notes, bad = [], [], []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.startswith("# "):
            notes.append(line[2:])
            continue
        m = LINE.match(line)
        if m:
            figures.append(m.groupdict())
        else:
            bad.append(line)
    return figures, notes, bad
