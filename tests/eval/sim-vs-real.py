#!/usr/bin/python3
"""How well the simulator predicts a real-time run: the same RFC 8867 case
and controller in the simulator (rtpcc-eval, one seed) next to a real-time
run of tests/eval/rt/rt-eval.py, per capacity phase and over the whole
run, with the ratio real / simulator.

Queuing delay is compared on the real runner's own basis: the bottleneck's
backlog (bytes queued / rate) sampled every 200 ms, which the real runner
reads from tbf and the simulator writes to link.csv. The simulator's
per-packet figure (a packet's wait plus its own transmission time, 9.6 ms
for 1200 B at 1 Mbit/s, averaged over the row's packets) is shown beside
it: it reads higher than any backlog sample of the same queue. A run in
network namespaces went through tbf, a token bucket that passes a burst of
3200 bytes (or 5 ms at the rate) at once: the simulator models it there
(rtpcc-eval --tbf-burst), a plain serializer for linkemu runs.

    tests/eval/sim-vs-real.py --rt OUT/5.1-ours [--case 5.1]
                              [--controller gcc] [--seed 1] [--build build]
                              [--ideal-encoder] [--controller-params P]
                              [--tbf-burst auto|on|off]

--rt is the per-case directory rt-eval.py wrote (its flow0.csv has the
simulator's columns). Prints a Markdown table: queuing delay p50/p95,
utilisation and target, per phase of the case's forward schedule. The
metrics are tests/eval/rfc8868.py's, over the same 200 ms rows for both.
The simulated codec follows its target through rtpccsink's encoder
hysteresis, as the real encoder does (rtpcc-eval --encoder-hysteresis);
--ideal-encoder hands it every target at once.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import rfc8868  # noqa: E402


def phases(case):
    sched = case["schedule"] or [[0, case.get("capacity_kbps", 0)]]
    end = case["duration_s"]
    out = []
    for i, (t, cap) in enumerate(sched):
        t1 = sched[i + 1][0] if i + 1 < len(sched) else end
        out.append((t, t1, cap))
    return out


def stats(rows, t0, t1, cap):
    sel = [k for k, t in enumerate(rows["time_s"]) if t0 <= t < t1]
    q = [rows["queue_delay_ms"][k] for k in sel
         if rfc8868._finite(rows["queue_delay_ms"][k])]
    recv = [rows["recv_kbps"][k] for k in sel]
    tgt = [rows["target_kbps"][k] for k in sel]
    return {
        "p50": rfc8868.percentile(q, 50) if q else float("nan"),
        "p95": rfc8868.percentile(q, 95) if q else float("nan"),
        "util": (rfc8868.mean(recv) / cap) if recv and cap else float("nan"),
        "target": rfc8868.mean(tgt) if tgt else float("nan"),
    }


def backlog(rows, t0, t1):
    q = [rows["queue_delay_ms"][k] for k, t in enumerate(rows["time_s"])
         if t0 <= t < t1 and rfc8868._finite(rows["queue_delay_ms"][k])]
    return (rfc8868.percentile(q, 50) if q else float("nan"),
            rfc8868.percentile(q, 95) if q else float("nan"))


def ratio(real, sim):
    if not (rfc8868._finite(real) and rfc8868._finite(sim)) or sim <= 0:
        return "–"
    return "%.2f" % (real / sim)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rt", required=True,
                    help="rt-eval.py's directory for one case and stack")
    ap.add_argument("--case", default="5.1")
    ap.add_argument("--controller", default="gcc")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--build", default=os.path.join(SRC, "build"))
    ap.add_argument("--controller-params", default=None,
                    help="as rt-eval.py's, for the simulated controller")
    ap.add_argument("--tbf-burst", choices=("auto", "on", "off"),
                    default="auto",
                    help="simulate the bottleneck as a token bucket like "
                    "the netns runner's tbf (auto: when the real run's "
                    "metrics.json says mode netns)")
    ap.add_argument("--ideal-encoder", action="store_true",
                    help="the target reaches the simulated codec at once")
    a = ap.parse_args()

    tool = os.path.join(a.build, "tests", "eval", "rtpcc-eval")
    real_csv = os.path.join(a.rt, "flow0.csv")
    if not os.path.exists(real_csv):
        sys.exit(f"{real_csv}: no real-time run there (rt-eval.py --out)")
    case = json.loads(subprocess.run([tool, "--describe", a.case],
                                     check=True, capture_output=True,
                                     text=True).stdout)
    burst = a.tbf_burst == "on"
    if a.tbf_burst == "auto":
        try:
            with open(os.path.join(a.rt, "metrics.json")) as fh:
                burst = json.load(fh).get("mode") == "netns"
        except (OSError, ValueError):
            burst = False
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([tool, "--case", a.case, "--controller",
                        a.controller, "--seed", str(a.seed), "--out", tmp,
                        "--quiet"] + ([] if a.ideal_encoder else
                                      ["--encoder-hysteresis"]) +
                       (["--controller-params", a.controller_params]
                        if a.controller_params else []) +
                       (["--tbf-burst"] if burst else []), check=True)
        sim = rfc8868.read_csv(os.path.join(tmp, a.case, a.controller,
                                            "flow0.csv"))
        sim_link = rfc8868.read_csv(os.path.join(tmp, a.case, a.controller,
                                                 "link.csv"))
    real = rfc8868.read_csv(real_csv)

    print(f"| {a.case} {a.controller} | backlog p50 ms sim / real | "
          "backlog p95 sim / real (ratio) | per-packet p95 sim | "
          "util sim / real | mean target kbit/s sim / real |")
    print("|---|---|---|---|---|---|")
    rows = phases(case) + [(0, case["duration_s"], None)]
    for t0, t1, cap in rows:
        c = cap if cap is not None else \
            sum((b - a_) * k for a_, b, k in phases(case)) / case["duration_s"]
        s, r = stats(sim, t0, t1, c), stats(real, t0, t1, c)
        (s50, s95), (r50, r95) = backlog(sim_link, t0, t1), \
            backlog(real, t0, t1)
        what = f"[{t0:g}, {t1:g}) s at {cap:g}" if cap is not None \
            else "whole run"
        print(f"| {what} | {s50:.0f} / {r50:.0f} | "
              f"{s95:.0f} / {r95:.0f} ({ratio(r95, s95)}) | {s['p95']:.0f} "
              f"| {s['util']:.2f} / {r['util']:.2f} | "
              f"{s['target']:.0f} / {r['target']:.0f} |")

if __name__ == "__main__":
    main()
