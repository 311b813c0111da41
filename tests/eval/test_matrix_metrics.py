#!/usr/bin/env python3
"""matrix_metrics.py over the CSVs of simulator runs = the C matrix
metrics (rtpcc-matrix --json) of the same runs (RTPCC_MATRIX: the tool)."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import matrix_metrics  # noqa: E402
import rfc8868  # noqa: E402

# CSV rates have one decimal: thresholds may cross one row apart
TOL = {"util": 0.002, "media_util": 0.002, "qdelay_p95_ms": 0.05,
       "swing_lo": 0.005, "swing_hi": 0.005, "util_after": 0.005,
       "recovery_s": 0.21, "reach_s": 0.21, "share": 0.002}


@unittest.skipUnless(os.environ.get("RTPCC_MATRIX"), "RTPCC_MATRIX not set")
class AgainstC(unittest.TestCase):
    def check(self, scenario, controller):
        tool = os.environ["RTPCC_MATRIX"]
        with tempfile.TemporaryDirectory() as d:
            j = os.path.join(d, "m.json")
            subprocess.run([tool, "--controller", controller, "--scenario",
                            scenario, "--set", "tuning", "--seeds", "1",
                            "--out", d, "--json", j, "--quiet"], check=True,
                           timeout=120, stdout=subprocess.DEVNULL)
            with open(j) as fh:
                c = json.load(fh)["results"][0]["runs"][0]
            out = os.path.join(d, scenario, controller, "seed1")
            with open(os.path.join(out, "summary.json")) as fh:
                summary = json.load(fh)
            case = summary["definition"]
            rows = {f["id"]: rfc8868.read_csv(os.path.join(out, f["csv"]))
                    for f in summary["flows"]}
            p = matrix_metrics.metrics(case, rows, rfc8868.score(case, rows))
        for k, eps in TOL.items():
            a, b = c.get(k), p.get(k)
            if a is None:
                self.assertTrue(math.isnan(b), f"{scenario} {k}: C {a} py {b}")
            elif a == "never":
                self.assertTrue(math.isinf(b), f"{scenario} {k}: C {a} py {b}")
            else:
                self.assertLessEqual(abs(a - b), eps,
                                     f"{scenario} {k}: C {a} py {b}")

    def test_outage(self):
        self.check("outage-5s", "nada")

    def test_short_rtt(self):
        self.check("short-rtt", "tfrc")

    def test_rr_low_start(self):
        self.check("rr-low-start", "gcc")

    def test_tcp(self):
        self.check("rfc8867-5.6", "gcc")

    def test_feedback_tcp(self):
        self.check("feedback-congested", "nada")


if __name__ == "__main__":
    unittest.main()
