#!/usr/bin/env python3
"""The causes of the matrix's misses (tests/eval/matrix-causes.ini) speak of
misses docs/matrix.md lists, and the page shows them as they are now.

* every section names a controller, scenarios and metrics whose every
  pairing is a miss in the page's "Misses" list (a cause that explains
  nothing is stale or mistyped), has a cause and a check command that runs
  tests/eval/matrix-why on one of its scenarios for its controller;
* the page's count line ("Misses with an established cause: ...") is what
  the ini and the page's misses give (the page was regenerated after the
  ini changed);
* with BUILD_DIR, every check command runs and prints its scenario.

Usage: test-matrix-causes.py SOURCE_ROOT [BUILD_DIR]
"""
import importlib.machinery
import importlib.util
import os
import re
import shlex
import subprocess
import sys


def load_make_matrix(src):
    path = os.path.join(src, "tests", "eval", "make-matrix")
    sys.dont_write_bytecode = True      # nothing written into the sources
    loader = importlib.machinery.SourceFileLoader("make_matrix", path)
    spec = importlib.util.spec_from_loader("make_matrix", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def page_misses(text):
    """{(controller, scenario, metric)} from the page's "### Misses" list."""
    body = text.split("### Misses", 1)[1].split("### Causes of the misses")[0]
    out, ctl = set(), None
    for line in body.splitlines():
        m = re.match(r"\* \*\*([\w-]+)\*\*", line)
        if m:
            ctl = m.group(1)
            continue
        m = re.match(r"  \* `([\w.-]+)`: (\w+) ", line)
        if m and ctl:
            out.add((ctl, m.group(1), m.group(2)))
    return out


def main():
    src = sys.argv[1]
    build = sys.argv[2] if len(sys.argv) > 2 else None
    mm = load_make_matrix(src)
    causes = mm.read_causes(os.path.join(src, "tests", "eval",
                                         "matrix-causes.ini"))
    with open(os.path.join(src, "docs", "matrix.md")) as fh:
        text = fh.read()
    miss = page_misses(text)
    errors = []
    if not miss:
        errors.append("docs/matrix.md: no misses parsed")
    covered, open_ = set(), set()
    for k in causes:
        where = f"[{k['section']}]"
        for s in k["scenarios"]:
            for m in k["metrics"]:
                key = (k["controller"], s, m)
                if key not in miss:
                    errors.append(f"{where}: {s} {m} is not a miss of "
                                  f"{k['controller']} in docs/matrix.md")
                (covered if k["established"] else open_).add(key)
        if len(k["cause"]) < 80:
            errors.append(f"{where}: no cause (or a few words only)")
        argv = shlex.split(k["check"])
        if argv[:1] != ["tests/eval/matrix-why"] or \
                k["controller"] not in argv or \
                not any(s in argv for s in k["scenarios"]):
            errors.append(f"{where}: check must run tests/eval/matrix-why "
                          "for its controller on one of its scenarios")
        elif build:
            r = subprocess.run(argv + ["--build", build], cwd=src,
                               capture_output=True, text=True)
            if r.returncode != 0 or f"== {k['controller']} " not in r.stdout:
                errors.append(f"{where}: check failed: {r.stderr[-300:]}")
    covered &= miss
    open_ = (open_ & miss) - covered
    want = (f"Misses with an established cause: {len(covered)} of "
            f"{len(miss)}; measured, mechanism not established: "
            f"{len(open_)}; no cause recorded yet: "
            f"{len(miss) - len(covered) - len(open_)}.")
    if want not in text:
        errors.append("docs/matrix.md is not regenerated since the causes "
                      f"changed (tests/eval/make-matrix): want \"{want}\"")
    for e in errors:
        print(e)
    print(f"{len(causes)} causes; {len(covered)} of {len(miss)} misses "
          f"explained, {len(open_)} measured only")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
