#!/usr/bin/env python3
"""Runs every gst-launch-1.0 pipeline shown in README.md and docs/*.md.

Each fenced code block is one scene: its pipelines run side by side, as a
reader would start them in several shells, for a few seconds (through
run-pipelines, in-process, so sanitizer builds work too). A pipeline must
parse, reach PLAYING and post no error; one that makes its own data (a
test source), and a receiver whose sender is in the same block, must also
get data to every sink. Window sinks become fakesink (no display here).
Elided fragments ("…", "/path/to/", "$VAR") are listed, not run.

Usage: test-docs-pipelines.py SOURCE_ROOT RUN_PIPELINES [MILLISECONDS]
"""
import glob
import os
import re
import subprocess
import sys

NETWORK_SOURCES = ("udpsrc", "rtpccsrc")
WINDOW_SINKS = ("autovideosink", "xvimagesink", "ximagesink", "glimagesink",
                "waylandsink", "autoaudiosink", "pulsesink", "alsasink")
PLACEHOLDER = re.compile(r"…|\.\.\.|/path/to/|\$\{?[A-Za-z_]")


def blocks(path):
    """(line number, [lines]) of each fenced block."""
    out, cur, start, fence = [], None, 0, None
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        s = line.strip()
        if cur is None:
            m = re.match(r"(`{3,}|~{3,})", s)
            if m:
                cur, start, fence = [], n, m.group(1)
        elif s.startswith(fence):
            out.append((start, cur))
            cur = None
        else:
            cur.append(line.rstrip("\n"))
    return out


def commands(lines):
    """Shell commands of a block, continuation lines joined."""
    out, cur = [], ""
    for line in lines:
        s = line.strip()
        if s.startswith("#") and not cur:
            continue
        if s.endswith("\\"):
            cur += s[:-1] + " "
            continue
        cur += s
        if cur.strip():
            out.append(cur.strip())
        cur = ""
    if cur.strip():
        out.append(cur.strip())
    return out


def pipeline_of(cmd):
    """The pipeline description of a gst-launch-1.0 command, or None."""
    m = re.search(r"\bgst-launch-1\.0\b(.*)$", cmd)
    if not m:
        return None
    rest = m.group(1).strip()
    rest = re.sub(r"\s*&\s*$", "", rest)
    while rest.startswith("-"):          # -e, -v, -q, ...
        rest = rest.split(None, 1)[1] if " " in rest else ""
    for sink in WINDOW_SINKS:
        rest = re.sub(r"\b%s\b" % sink, "fakesink", rest)
    return rest


def first_element(desc):
    return desc.strip().split()[0] if desc.strip() else ""


def main():
    root, runner = sys.argv[1], sys.argv[2]
    ms = sys.argv[3] if len(sys.argv) > 3 else "5000"
    docs = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")))
    failed = ran = 0
    for doc in docs:
        rel = os.path.relpath(doc, root)
        for start, lines in blocks(doc):
            cmds = commands(lines)
            pipes = []
            others = False
            for c in cmds:
                p = pipeline_of(c)
                if p is None:
                    others = True
                elif PLACEHOLDER.search(p):
                    print(f"{rel}:{start}: fragment, not run: {p}")
                else:
                    pipes.append(p)
            if not pipes:
                continue
            args = []
            for p in pipes:
                own_data = first_element(p) not in NETWORK_SOURCES
                fed = len(pipes) > 1 and not others
                args.append(("+" if own_data or fed else "") + p)
            ran += len(pipes)
            r = subprocess.run([runner, ms] + args, capture_output=True,
                               text=True, timeout=120)
            status = "ok" if r.returncode == 0 else "FAIL"
            print(f"{rel}:{start}: {status} ({len(pipes)} pipeline(s))")
            if r.returncode != 0:
                failed += 1
                sys.stdout.write(r.stdout + r.stderr)
    print(f"{ran} pipelines run, {failed} block(s) failed")
    # the docs show pipelines: finding none means the extraction broke
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
