#!/usr/bin/python3
"""sim-vs-real.py: a "real-time" directory holding the simulator's own run
of the same case and seed, laid out as rt-eval.py lays out a real run (the
bottleneck's sampled backlog as flow0.csv's queuing delay), must be
predicted exactly (every ratio 1.00), and one with every queuing delay
doubled must read 2.00. The same for a scenario of the matrix."""
import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.environ.get("RTPCC_EVAL")


@unittest.skipUnless(EVAL, "RTPCC_EVAL (the rtpcc-eval binary) not set")
class SimVsReal(unittest.TestCase):
    def run_tool(self, rt, build, *extra):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "sim-vs-real.py"), "--rt", rt,
             "--controller", "gcc", "--seed", "1", "--build", build] +
            (list(extra) or ["--case", "5.1"]), check=True,
            capture_output=True, text=True).stdout

    @staticmethod
    def as_real_run(rt):
        """flow0.csv as rt-eval.py writes it: rows stamped at their end,
        with the link's backlog sample there"""
        with open(os.path.join(rt, "link.csv"), newline="") as fh:
            link = list(csv.DictReader(fh))
        path = os.path.join(rt, "flow0.csv")
        with open(path, newline="") as fh:
            data = list(csv.DictReader(fh))
        assert len(link) == len(data)
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(data[0].keys()))
            w.writeheader()
            for r, ls in zip(data, link):
                r["time_s"] = ls["time_s"]
                r["queue_delay_ms"] = ls["queue_delay_ms"]
                w.writerow(r)

    def test_matrix_scenario(self):
        build = os.path.dirname(os.path.dirname(os.path.dirname(EVAL)))
        matrix = os.path.join(os.path.dirname(EVAL), "rtpcc-matrix")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([matrix, "--scenario", "outage-5s", "--controller",
                            "gcc", "--set", "tuning", "--seeds", "2",
                            "--out", tmp, "--quiet", "--encoder-x264"],
                           check=True, capture_output=True)
            rt = os.path.join(tmp, "outage-5s", "gcc", "seed2")
            self.as_real_run(rt)
            out = self.run_tool(rt, build, "--matrix", "outage-5s",
                                "--seeds", "2", "--score")
            # three phases (2 Mbit/s, the outage, 2 Mbit/s) and the whole
            # run, all the same as the simulator's own seed 2
            self.assertRegex(out, r"^\| outage-5s \| x264 \| \d+ / \d+ "
                             r"\(1.00\) \| 0.00 \| 0.00 \| 2 of 2 \|")
            # seed 1 is another run
            other = self.run_tool(rt, build, "--matrix", "outage-5s",
                                  "--seeds", "1", "--score")
            self.assertNotEqual(other, out)

    def test_self_prediction_and_scaling(self):
        # the tool finds rtpcc-eval as BUILD/tests/eval/rtpcc-eval
        build = os.path.dirname(os.path.dirname(os.path.dirname(EVAL)))
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([EVAL, "--case", "5.1", "--controller", "gcc",
                            "--seed", "1", "--out", tmp, "--quiet",
                            "--encoder-x264"], check=True)
            rt = os.path.join(tmp, "5.1", "gcc")
            path = os.path.join(rt, "flow0.csv")
            self.as_real_run(rt)
            out = self.run_tool(rt, build)
            rows = [l for l in out.splitlines() if l.startswith("| [")
                    or l.startswith("| whole")]
            self.assertEqual(len(rows), 5)  # four phases and the whole run
            for l in rows:
                self.assertIn("(1.00)", l)
            # the same run against the ideal encoder is not the same run
            ideal = subprocess.run(
                [sys.executable, os.path.join(HERE, "sim-vs-real.py"),
                 "--rt", rt, "--case", "5.1", "--controller", "gcc",
                 "--seed", "1", "--build", build, "--ideal-encoder"],
                check=True, capture_output=True, text=True).stdout
            self.assertNotEqual(ideal, out)
            # nor against the statistical codec
            self.assertNotEqual(self.run_tool(rt, build, "--case", "5.1",
                                              "--codec", "syncodecs"), out)
            # nor against tbf's token bucket: an empty backlog most of the
            # time (p50 0 at 1 Mbit/s, where every sample of the plain
            # serializer holds the packet in service)
            tbf = subprocess.run(
                [sys.executable, os.path.join(HERE, "sim-vs-real.py"),
                 "--rt", rt, "--case", "5.1", "--controller", "gcc",
                 "--seed", "1", "--build", build, "--tbf-burst", "on"],
                check=True, capture_output=True, text=True).stdout
            first = [l for l in tbf.splitlines() if l.startswith("| [0,")]
            self.assertTrue(first[0].startswith("| [0, 40) s at 1000 | 0 / "),
                            first[0])
            self.assertNotEqual(tbf, out)
            # double the queuing delay of the "real" run
            with open(path, newline="") as fh:
                data = list(csv.DictReader(fh))
            with open(path, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(data[0].keys()))
                w.writeheader()
                for r in data:
                    try:
                        r["queue_delay_ms"] = "%.6f" % (
                            2 * float(r["queue_delay_ms"]))
                    except ValueError:
                        pass
                    w.writerow(r)
            out = self.run_tool(rt, build)
            whole = [l for l in out.splitlines() if l.startswith("| whole")]
            self.assertIn("(2.00)", whole[0])


if __name__ == "__main__":
    unittest.main()
