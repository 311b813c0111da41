#!/usr/bin/python3
"""matrix-why --rt on a synthetic real-time case directory: the rows above
the limit are counted and split as for the simulator's runs, and with the
case's TCP flows (tcpN.csv, as rt-eval.py writes them) the rows in which a
TCP flow sent are counted; without them that line is absent."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ("time_s,capacity_kbps,target_kbps,send_kbps,recv_kbps,"
           "queue_delay_ms,loss_pct,rtt_ms,sender_delay_ms")


def write(path, rows):
    with open(path, "w") as fh:
        fh.write(COLUMNS + "\n")
        for r in rows:
            fh.write(",".join(str(x) for x in r) + "\n")


class MatrixWhyRt(unittest.TestCase):
    def run_rt(self, rt):
        return subprocess.run(
            [sys.executable, os.path.join(HERE, "matrix-why"), "--rt", rt,
             "--limit", "60"], check=True, capture_output=True,
            text=True).stdout

    def test_tcp_rows(self):
        with tempfile.TemporaryDirectory() as rt:
            # 100 rows after start-up on a constant 2 Mbit/s link; the
            # queue is above 60 ms in rows 60-69, and a TCP flow sends in
            # rows 65-79
            media, tcp = [], []
            for k in range(100):
                t = 10.2 + 0.2 * k
                q = 80.0 if 60 <= k < 70 else 10.0
                media.append((f"{t:.1f}", 2000, 1000, 1000, 1000, q, 0, 100,
                              "nan"))
                # as rt-eval.py writes it: goodput only, no send rate
                tcp.append((f"{t:.1f}", 2000, "nan", "nan",
                            500 if 65 <= k < 80 else 0, q, 0, "nan",
                            "nan"))
            write(os.path.join(rt, "flow0.csv"), media)
            out = self.run_rt(rt)
            self.assertIn("rows above 60 ms: 10 of 100", out)
            self.assertIn("other 10", out)
            self.assertNotIn("TCP flow sent", out)
            write(os.path.join(rt, "tcp0.csv"), tcp)
            # a file that only looks like a TCP flow's is not read
            write(os.path.join(rt, "tcp0-short.csv"), [])
            out = self.run_rt(rt)
            self.assertIn("of these, rows in which a TCP flow sent: 5", out)


if __name__ == "__main__":
    unittest.main()
