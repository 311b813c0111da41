#!/usr/bin/python3
"""Unit tests of the real-time video-quality plumbing (no pipeline runs):
the frame-number barcode survives what a decoder does to it and rejects
damage, and frame alignment numbers, repeats and counts frames as
docs/realtime-eval.md says."""
import os
import sys
import tempfile
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rt_quality  # noqa: E402

rt_flow = rt_quality.rt_flow


def frame(w, h, fill=128):
    return np.full(w * h * 3 // 2, fill, dtype=np.uint8)


class Barcode(unittest.TestCase):
    def test_roundtrip(self):
        for w in (320, 480, 640):
            for n in (0, 1, 2, 1234, 65535):
                f = frame(w, 180)
                rt_flow.stamp(f, n, w)
                self.assertEqual(rt_flow.read_stamp(f, w), n)

    def test_survives_noise_and_blur(self):
        rng = np.random.default_rng(1)
        w = 480
        f = frame(w, 270)
        rt_flow.stamp(f, 4321, w)
        noisy = f.astype(np.int16) + rng.integers(-40, 41, f.size)
        noisy = np.clip(noisy, 0, 255).astype(np.uint8)
        self.assertEqual(rt_flow.read_stamp(noisy, w), 4321)

    def test_damage_is_rejected(self):
        w = 480
        f = frame(w, 270)
        rt_flow.stamp(f, 77, w)
        bw = w // rt_flow.BAR_BITS
        y = f[:w * rt_flow.BAR_ROWS].reshape(rt_flow.BAR_ROWS, w)
        # flip one block of the number but not its complement
        y[:, 0:bw] = 255 - y[:, 0:bw]
        self.assertEqual(rt_flow.read_stamp(f, w), -1)
        # a flat grey frame (concealment) carries no number
        self.assertEqual(rt_flow.read_stamp(frame(w, 270), w), -1)


class Numbering(unittest.TestCase):
    def test_readable_frames_pass_through(self):
        recv = [(0, 0, 10.0), (1, 1, 10.033), (2, 3, 10.1)]
        out = rt_quality.number_frames(recv, 30)
        self.assertEqual([(i, n) for i, n, _, _ in out],
                         [(0, 0), (1, 1), (2, 3)])
        self.assertTrue(all(ok for _, _, _, ok in out))

    def test_unreadable_numbered_from_neighbours(self):
        # frame 2 unreadable, shown one frame time after frame 1
        recv = [(0, 0, 10.0), (1, 1, 10.033), (2, -1, 10.066),
                (3, 3, 10.1)]
        out = rt_quality.number_frames(recv, 30)
        self.assertEqual([n for _, n, _, _ in out], [0, 1, 2, 3])
        self.assertFalse(out[2][3])

    def test_unreadable_never_reaches_next_readable(self):
        # a long display gap would say n=7, but 4 is the next readable
        recv = [(0, 1, 10.0), (1, -1, 10.2), (2, 4, 10.25)]
        out = rt_quality.number_frames(recv, 30)
        self.assertEqual([n for _, n, _, _ in out], [1, 3, 4])

    def test_duplicates_and_leading_unreadable_dropped(self):
        recv = [(0, -1, 9.9), (1, 5, 10.0), (2, 5, 10.03), (3, 4, 10.06),
                (4, 6, 10.1)]
        out = rt_quality.number_frames(recv, 30)
        self.assertEqual([(i, n) for i, n, _, _ in out], [(1, 5), (4, 6)])


class Alignment(unittest.TestCase):
    """analyse() without the ffmpeg step: freeze % and latency."""

    def test_freeze_and_latency(self):
        with tempfile.TemporaryDirectory() as d:
            snd = os.path.join(d, "s.csv")
            rcv = os.path.join(d, "r.csv")
            with open(snd, "w") as f:
                f.write("frame,t_capture\n")
                for n in range(10):
                    f.write(f"{n},{100 + n / 30:.6f}\n")
            with open(rcv, "w") as f:
                f.write("index,frame,t_display\n")
                # frames 3 and 4 lost, the rest shown 80 ms after capture
                for i, n in enumerate([0, 1, 2, 5, 6, 7, 8, 9]):
                    f.write(f"{i},{n},{100 + n / 30 + 0.08:.6f}\n")
            res = rt_quality.analyse(snd, rcv, None, 320, 180, 30, d)
            self.assertEqual(res["frames_sent"], 10)
            self.assertEqual(res["frames_decoded"], 8)
            self.assertAlmostEqual(res["freeze_pct"], 20.0)
            self.assertAlmostEqual(res["g2g_mean_ms"], 80.0, delta=0.01)


if __name__ == "__main__":
    unittest.main(verbosity=2)
