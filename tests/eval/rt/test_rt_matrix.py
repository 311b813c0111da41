#!/usr/bin/python3
"""The real-time runner's scenario-matrix plumbing, without running a
pipeline: traces become capacity schedules, loss specifications reach the
delay line and linkemu in their forms, and the scenarios that rtpcc-matrix
describes (RTPCC_MATRIX: the tool) load with the topology, trace, TCP
direction and path they need (docs/realtime-eval.md, "Scenario matrix")."""
import importlib.util
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "rt_eval", os.path.join(HERE, "rt-eval.py"))
rt_eval = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt_eval)


class Plumbing(unittest.TestCase):
    def test_trace_schedule(self):
        with tempfile.NamedTemporaryFile("w", suffix=".trace") as f:
            # 0-0.2 s: 10 opportunities, 0.2-0.4 s: none, 0.4-0.6 s: 5
            f.write("\n".join(["1"] * 10 + ["450"] * 5 + ["600"]) + "\n")
            f.flush()
            s = rt_eval.trace_schedule(f.name, 0.6)
        self.assertEqual([t for t, _ in s], [0.0, 0.2, 0.4])
        self.assertAlmostEqual(s[0][1], 10 * 1500 * 8 / 0.2 / 1000)
        self.assertEqual(s[1][1], 0.0)
        self.assertAlmostEqual(s[2][1], 5 * 1500 * 8 / 0.2 / 1000)

    def test_loss_forms(self):
        self.assertEqual(rt_eval.loss_spec(None), "none")
        self.assertEqual(rt_eval.loss_spec({"model": "bernoulli", "p": 0.02}),
                         "bernoulli:0.02")
        ge = {"model": "gilbert-elliott", "p": 0.0067, "r": 0.25, "k": 1,
              "h": 0}
        self.assertEqual(rt_eval.loss_spec(ge), "gilbert:0.0067,0.25,1,0")
        self.assertIn("loss-model=gilbert-elliott", rt_eval.linkemu_loss(ge))
        self.assertIn("ge-r=0.25", rt_eval.linkemu_loss(ge))
        self.assertEqual(rt_eval.linkemu_loss(None), "")


@unittest.skipUnless(os.environ.get("RTPCC_MATRIX"), "RTPCC_MATRIX not set")
class Scenarios(unittest.TestCase):
    def load(self, name, d):
        build = os.path.dirname(os.path.dirname(os.path.dirname(
            os.environ["RTPCC_MATRIX"])))
        return rt_eval.load_matrix_case(name, build, 10001, d)

    def test_scenarios(self):
        with tempfile.TemporaryDirectory() as d:
            c = self.load("short-rtt", d)
            self.assertEqual(c["topology"], "sender-qdisc")
            self.assertTrue(rt_eval.needs_netns(c))
            self.assertEqual(c["set"], "heldout")
            c = self.load("cellular", d)
            self.assertTrue(os.path.exists(c["trace_file"]))
            self.assertEqual(len(c["schedule"]), 600)
            self.assertFalse(rt_eval.needs_netns(c))
            self.assertIsNone(rt_eval.to_definition(c)["schedule"])
            c = self.load("feedback-congested", d)
            self.assertEqual(c["tcp"][0]["dir"], "rev")
            self.assertTrue(rt_eval.needs_netns(c))
            c = self.load("outage-5s", d)
            self.assertIn((20.0, 0.0), c["schedule"])
            self.assertFalse(rt_eval.needs_netns(c))
            c = self.load("loss-bursty", d)
            self.assertEqual(c["loss"]["model"], "gilbert-elliott")
            c = self.load("keyframes", d)
            self.assertEqual(c["codec"]["keyframe_interval"], 50)


if __name__ == "__main__":
    unittest.main()
