#!/usr/bin/env python3
"""Unit tests of tests/eval/rfc8868.py: the metrics on constructed series
(the same series as test-eval-metrics.c), and, when RTPCC_EVAL names the
rtpcc-eval binary, agreement with the simulator's C scoring on real runs
(the C side scores full-precision rows, Python the rounded CSV)."""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rfc8868 as m  # noqa: E402


class Metrics(unittest.TestCase):
    def test_jain(self):
        self.assertAlmostEqual(m.jain([5, 5, 5, 5]), 1.0)
        self.assertAlmostEqual(m.jain([8, 0, 0, 0]), 0.25)
        self.assertAlmostEqual(m.jain([3, 1]), 0.8)
        self.assertAlmostEqual(m.jain([300, 100]), 0.8)
        self.assertTrue(math.isnan(m.jain([0, 0, 0])))
        self.assertTrue(math.isnan(m.jain([])))

    def test_percentile(self):
        v = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5]
        self.assertEqual(m.percentile(v, 50), 5)
        self.assertEqual(m.percentile(v, 95), 10)
        self.assertEqual(m.percentile(v, 90), 9)
        self.assertEqual(m.percentile(v, 1), 1)
        self.assertEqual(m.percentile([math.nan, 4, math.nan, 2], 50), 2)
        self.assertTrue(math.isnan(m.percentile([math.nan], 50)))

    def step(self):
        t = [0.2 * i for i in range(300)]
        x = [500.0 if ti < 10 else 1000 - 500 * math.exp(-(ti - 10) / 2)
             for ti in t]
        return t, x

    def test_convergence(self):
        t, x = self.step()
        c = m.convergence_time(t, x, 0.2, 10, 60, 1000, 0.2, 2.0)
        self.assertAlmostEqual(c, 1.6, places=9)
        self.assertGreater(m.convergence_time(t, x, 0.2, 10, 60, 1000, 0.05,
                                              2.0), c + 2)
        self.assertEqual(m.convergence_time(t, x, 0.2, 0, 10, 500, 0.2, 2.0),
                         0.0)
        self.assertTrue(math.isnan(m.convergence_time(t, x, 0.2, 10, 11,
                                                      1000, 0.2, 2.0)))
        self.assertTrue(math.isnan(m.convergence_time(t, x, 0.2, 10, 60,
                                                      2000, 0.2, 2.0)))

    def test_convergence_hold(self):
        t = [0.2 * i for i in range(200)]
        x = [1000.0 if (5 <= ti < 6 or ti >= 12) else 400.0 for ti in t]
        self.assertAlmostEqual(m.convergence_time(t, x, 0.2, 0, 40, 1000,
                                                  0.2, 2.0), 11.8, places=9)
        self.assertAlmostEqual(m.convergence_time(t, x, 0.2, 0, 40, 1000,
                                                  0.2, 0.0), 4.8, places=9)

    def test_oscillation(self):
        t = [0.2 * i for i in range(100)]
        x = [1800.0 if (i // 2) % 2 else 200.0 for i in range(100)]
        self.assertEqual(m.oscillation_swings(t, x, 0, 20, 500, 1500, 0.5),
                         49)
        self.assertEqual(m.oscillation_swings(t, x, 0, 20, 500, 1500, 0.1),
                         0)
        self.assertEqual(m.oscillation_swings(t, x, 0, 20, 100, 1900, 0.5),
                         0)
        self.assertEqual(m.oscillation_swings(t, x, 0, 2, 500, 1500, 0.5), 4)
        tri = [200 + 200 * (ti % 16) if ti % 16 < 8
               else 1800 - 200 * (ti % 16 - 8) for ti in t]
        self.assertEqual(m.oscillation_swings(t, tri, 0, 20, 500, 1500, 1.0),
                         0)
        y = [1000.0] * 100
        y[10], y[12] = 200.0, 1800.0
        self.assertEqual(m.oscillation_swings(t, y, 0, 20, 500, 1500, 0.5), 1)
        self.assertAlmostEqual(m.cv(t, y, 0, 2), 0.0)
        self.assertTrue(math.isnan(m.cv(t, y, 0, 0.2)))

    def test_score_constructed(self):
        """Two flows at 600/400 of 1000 kbit/s: utilisation 1, Jain 0.96,
        one convergence entry per flow (the event at 0 s)."""
        case = {"duration_s": 20, "schedule": [[0, 1000]],
                "media": {"max_kbps": 3000},
                "flows": [{"id": 0, "start": 0, "stop": 20, "dir": "fwd"},
                          {"id": 1, "start": 0, "stop": 20, "dir": "fwd"}],
                "tcp": []}
        t = [0.2 * i for i in range(100)]

        def rows(rate):
            n = len(t)
            return {"time_s": t, "capacity_kbps": [1000.0] * n,
                    "target_kbps": [rate] * n, "send_kbps": [rate] * n,
                    "recv_kbps": [rate] * n,
                    "queue_delay_ms": [10.0 + (i % 10) for i in range(n)],
                    "loss_pct": [0.0] * n, "rtt_ms": [100.0] * n}
        r = m.score(case, {0: rows(600.0), 1: rows(400.0)})
        s = r["summary"]
        self.assertAlmostEqual(s["util"], 1.0)
        self.assertAlmostEqual(s["jain_min"], 1.0 / (2 * 0.52))
        self.assertEqual(s["conv_n"], 2)
        # 600 and 400 vs a fair share of 500: both within 20 %
        self.assertEqual(s["conv_missed"], 0)
        self.assertEqual(s["conv_max_s"], 0.0)
        self.assertEqual(s["qdelay_p95_ms"], 19.0)
        self.assertEqual(s["swings"], 0)


@unittest.skipUnless(os.environ.get("RTPCC_EVAL"), "RTPCC_EVAL not set")
class AgainstC(unittest.TestCase):
    """rfc8868.py over the CSVs = the C summary of the same run."""

    def check(self, case, controller):
        tool = os.environ["RTPCC_EVAL"]
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([tool, "--case", case, "--controller", controller,
                            "--seed", "1", "--out", d, "--quiet"],
                           check=True, timeout=120)
            out = os.path.join(d, case, controller)
            with open(os.path.join(out, "summary.json")) as fh:
                c = json.load(fh)["summary"]
            p = m.score_dir(out)["summary"]
        tol = {"util": 0.002, "media_util": 0.002, "jain_min": 0.002,
               "jain_mean": 0.002, "qdelay_mean_ms": 0.05,
               "qdelay_p95_ms": 0.05, "qdelay_max_ms": 0.05,
               "loss_pct": 0.005, "media_share": 0.002,
               "conv_max_s": 0.41, "conv_mean_s": 0.41}
        for k, eps in tol.items():
            a, b = c.get(k), p.get(k)
            if a is None or (isinstance(b, float) and math.isnan(b)):
                self.assertTrue(a is None and (b is None or math.isnan(b)),
                                f"{case}/{controller} {k}: C {a} py {b}")
                continue
            self.assertLessEqual(abs(a - b), eps,
                                 f"{case}/{controller} {k}: C {a} py {b}")
        self.assertEqual(c["conv_n"], p["conv_n"])
        self.assertLessEqual(abs(c["swings"] - p["swings"]), 1)

    def test_5_2(self):
        self.check("5.2", "gcc")

    def test_5_3(self):
        self.check("5.3", "tfrc")

    def test_5_6(self):
        self.check("5.6", "nada")

    def test_5_8(self):
        self.check("5.8", "gcc")


if __name__ == "__main__":
    unittest.main()
