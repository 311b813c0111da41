#!/usr/bin/python3
"""The main job, shortened: rtpcc-call through the emulated path for a few
seconds, then pipelines/plot-call.py on its log, as `./run demo` does.

Checks behaviour only (2 shared cores): the call ran to its end and decoded
video, the controller moved the encoder's bitrate, the log has its rows and
the plot is a PNG. A missing element fails the test: the demo must work on
every machine `./run` has set up.

  demo_smoke.py BUILD_ROOT SOURCE_ROOT
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

DURATION = 8  # s; the CSV has one row per 200 ms


def fail(msg):
    print(f"FAIL: {msg}")
    return 1


def main():
    build, src = (os.path.abspath(a) for a in sys.argv[1:3])
    with tempfile.TemporaryDirectory(prefix="rtpcc-demo-") as tmp:
        log = os.path.join(tmp, "call.csv")
        png = os.path.join(tmp, "call.png")
        r = subprocess.run([os.path.join(build, "pipelines", "rtpcc-call"),
                            "--duration", str(DURATION), "--csv", log],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout)
        print(r.stderr, file=sys.stderr)
        if r.returncode != 0:
            return fail(f"rtpcc-call exited {r.returncode}")
        if not re.search(rf"== summary: controller tfrc, {DURATION} s",
                         r.stdout):
            return fail("no summary for the whole call")
        m = re.search(r"^video\s+(\d+) frames decoded", r.stdout, re.M)
        if not m or int(m.group(1)) == 0:
            return fail("no video decoded")

        with open(log) as f:
            rows = list(csv.DictReader(ln for ln in f
                                       if not ln.startswith("#")))
        if not rows:
            return fail("the log has no rows")
        if float(rows[-1]["time_s"]) != DURATION:
            return fail(f"the log ends at {rows[-1]['time_s']} s, "
                        f"not {DURATION} s")
        enc = {float(row["encoder_kbps"]) for row in rows}
        if len(enc) < 2:
            return fail(f"encoder bitrate never changed ({enc})")
        print(f"{len(rows)} rows, encoder bitrate "
              f"{min(enc):.0f}..{max(enc):.0f} kbit/s")

        r = subprocess.run(["/usr/bin/python3",
                            os.path.join(src, "pipelines", "plot-call.py"),
                            log, png], capture_output=True, text=True,
                           timeout=300)
        if r.returncode != 0:
            return fail(f"plot-call.py exited {r.returncode}: {r.stderr}")
        if not os.path.isfile(png):
            return fail("plot-call.py wrote no plot")
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                return fail("the plot is not a PNG")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
