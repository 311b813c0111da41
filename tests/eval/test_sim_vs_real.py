#!/usr/bin/python3
"""sim-vs-real.py: a "real-time" directory holding the simulator's own run
of the same case and seed, laid out as rt-eval.py lays out a real run (the
bottleneck's sampled backlog as flow0.csv's queuing delay), must be
predicted exactly (every ratio 1.00), and one with every queuing delay
doubled must read 2.00."""
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
    def run_tool(self, rt, build):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "sim-vs-real.py"), "--rt", rt,
             "--case", "5.1", "--controller", "gcc", "--seed", "1",
             "--build", build], check=True, capture_output=True,
            text=True).stdout

    def test_self_prediction_and_scaling(self):
        # the tool finds rtpcc-eval as BUILD/tests/eval/rtpcc-eval
        build = os.path.dirname(os.path.dirname(os.path.dirname(EVAL)))
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([EVAL, "--case", "5.1", "--controller", "gcc",
                            "--seed", "1", "--out", tmp, "--quiet",
                            "--encoder-hysteresis"], check=True)
            rt = os.path.join(tmp, "5.1", "gcc")
            # as rt-eval.py writes flow0.csv: rows stamped at their end,
            # with the link's sample there
            with open(os.path.join(rt, "link.csv"), newline="") as fh:
                link = list(csv.DictReader(fh))
            path = os.path.join(rt, "flow0.csv")
            with open(path, newline="") as fh:
                data = list(csv.DictReader(fh))
            self.assertEqual(len(link), len(data))
            with open(path, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(data[0].keys()))
                w.writeheader()
                for r, ls in zip(data, link):
                    r["time_s"] = ls["time_s"]
                    r["queue_delay_ms"] = ls["queue_delay_ms"]
                    w.writerow(r)
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
