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
                              [--matrix ID] [--seeds 1-4]
                              [--summary | --score] [--codec x264|syncodecs]

--rt is the per-case directory rt-eval.py wrote (its flow0.csv has the
simulator's columns). A scenario of the matrix (rt-eval.py --matrix ID
--seed N) is compared with --matrix ID --seed N: the simulator then runs
rtpcc-matrix's case for that seed (its trace too: a trace scenario is
compared on the real run's seed alone).

Prints a Markdown table per simulator seed (--seeds 1-4: one each):
queuing delay p50/p95, utilisation and target, per phase of the case's
forward schedule. --summary prints one line per seed instead (the whole
run, and the phase the simulator misses most); --score one line over all
seeds (how far apart real and simulated are: the per-case table of
docs/simulator.md). The metrics are tests/eval/rfc8868.py's, over the same
200 ms rows for both.

The simulated codec follows its target through rtpccsink's encoder
hysteresis, as the real encoder does (rtpcc-eval --encoder-hysteresis);
--ideal-encoder hands it every target at once (and implies --codec
syncodecs). The codec is modelled on x264enc as the real-time runner runs
it (rtpcc-eval --encoder-x264); --codec syncodecs takes the statistical
codec of RFC 8593 instead.
"""
import argparse
import json
import math
import os
import statistics
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
    # a trace-driven case has no phases: utilisation on the rows' own
    # capacity
    caps = [rows["capacity_kbps"][k] for k in sel
            if rfc8868._finite(rows["capacity_kbps"][k])]
    if not cap and caps:
        cap = rfc8868.mean(caps)
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
    ap.add_argument("--codec", choices=("x264", "syncodecs"),
                    default="x264",
                    help="the simulated codec: modelled on x264enc as the "
                    "real-time runner runs it (rtpcc-eval --encoder-x264, "
                    "the default), or the statistical codec of RFC 8593's "
                    "syncodecs")
    ap.add_argument("--matrix", default=None,
                    help="a scenario of tests/eval/matrix.ini instead of "
                    "an RFC 8867 case (rt-eval.py --matrix)")
    ap.add_argument("--seeds", default=None,
                    help="several simulator seeds, e.g. 1-4 (one table or "
                    "summary line each)")
    ap.add_argument("--score", action="store_true",
                    help="one line over all seeds: the whole run's p95 "
                    "(the simulator's median), mean |ln(real / sim)| of the "
                    "whole run and per phase, phases within +-30 %%")
    ap.add_argument("--summary", action="store_true",
                    help="one line per seed: whole-run backlog p95 and "
                    "utilisation, and the phase furthest from the "
                    "simulator")
    a = ap.parse_args()

    a.seeds = seed_list(a.seeds) if a.seeds else [a.seed]
    if a.ideal_encoder:
        a.codec = "syncodecs"   # the x264 model includes the hysteresis
    real_csv = os.path.join(a.rt, "flow0.csv")
    if not os.path.exists(real_csv):
        sys.exit(f"{real_csv}: no real-time run there (rt-eval.py --out)")
    burst = a.tbf_burst == "on"
    if a.tbf_burst == "auto":
        try:
            with open(os.path.join(a.rt, "metrics.json")) as fh:
                burst = json.load(fh).get("mode") == "netns"
        except (OSError, ValueError):
            burst = False
    real = rfc8868.read_csv(real_csv)
    name = a.matrix or a.case
    scores = []
    for seed in a.seeds:
        case, sim, sim_link = simulate(a, seed, burst)
        if case["schedule"] is None and len(a.seeds) > 1:
            # the seed draws the trace: another seed is another path
            sys.exit(f"{name}: a trace scenario compares one seed, the "
                     "real run's (--seed N)")
        scores.append(report(a, name, seed, case, sim, sim_link, real))
    if a.score:
        print_score(a, name, scores)


def print_score(a, name, scores):
    """One line over the seeds: the whole run's backlog p95 (the
    simulator's median over the seeds), how far real and simulated p95
    are apart per phase (mean |ln(real / sim)|: 0.26 is a factor 1.3) and
    how many phase-seed pairs have real / sim within 0.7-1.3."""
    med = statistics.median(sc["whole"][0] for sc in scores)
    real = scores[0]["whole"][1]
    logs = [x for sc in scores for x in sc["phases"]]
    wlogs = [math.log(sc["whole"][1] / sc["whole"][0])
             for sc in scores if sc["whole"][0] > 0 and sc["whole"][1] > 0]
    if not logs:
        logs = wlogs            # one phase: the whole run is it
    within = sum(1 for x in logs if abs(math.exp(x) - 1) <= 0.3)
    wlogs = [abs(x) for x in wlogs]
    logs = [abs(x) for x in logs]
    model = a.codec + (", ideal encoder" if a.ideal_encoder else "")
    print(f"| {name} | {model} | {med:.0f} / {real:.0f} ({ratio(real, med)})"
          f" | {sum(wlogs) / max(len(wlogs), 1):.2f} | "
          f"{sum(logs) / max(len(logs), 1):.2f} | {within} of {len(logs)} |")


def seed_list(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def simulate(a, seed, burst):
    """The case's definition and the simulator's flow 0 and link rows."""
    common = ([] if a.ideal_encoder else ["--encoder-hysteresis"]) + \
        (["--encoder-x264"] if a.codec == "x264" else []) + \
        (["--controller-params", a.controller_params]
         if a.controller_params else []) + (["--tbf-burst"] if burst else [])
    with tempfile.TemporaryDirectory() as tmp:
        if a.matrix:
            tool = os.path.join(a.build, "tests", "eval", "rtpcc-matrix")
            case = json.loads(subprocess.run(
                [tool, "--describe", a.matrix, "--seed", str(seed)],
                check=True, capture_output=True, text=True).stdout)
            held = seed > 10000
            subprocess.run([tool, "--scenario", a.matrix, "--controller",
                            a.controller, "--set",
                            "heldout" if held else "tuning", "--seeds",
                            str(seed - 10000 if held else seed), "--out",
                            tmp, "--quiet"] + common, check=True,
                           capture_output=True)
            d = os.path.join(tmp, a.matrix, a.controller, f"seed{seed}")
        else:
            tool = os.path.join(a.build, "tests", "eval", "rtpcc-eval")
            case = json.loads(subprocess.run(
                [tool, "--describe", a.case], check=True,
                capture_output=True, text=True).stdout)
            subprocess.run([tool, "--case", a.case, "--controller",
                            a.controller, "--seed", str(seed), "--out", tmp,
                            "--quiet"] + common, check=True)
            d = os.path.join(tmp, a.case, a.controller)
        return (case, rfc8868.read_csv(os.path.join(d, "flow0.csv")),
                rfc8868.read_csv(os.path.join(d, "link.csv")))


def report(a, name, seed, case, sim, sim_link, real):
    rows = phases(case) + [(0, case["duration_s"], None)]
    lines = []
    worst = None
    logs = []
    for t0, t1, cap in rows:
        if cap is None:
            c = sum((b - a_) * k for a_, b, k in phases(case)) / \
                case["duration_s"] if case["schedule"] else 0
        else:
            c = cap
        s, r = stats(sim, t0, t1, c), stats(real, t0, t1, c)
        (s50, s95), (r50, r95) = backlog(sim_link, t0, t1), \
            backlog(real, t0, t1)
        what = f"[{t0:g}, {t1:g}) s at {cap:g}" if cap is not None \
            else "whole run"
        lines.append(f"| {what} | {s50:.0f} / {r50:.0f} | "
                     f"{s95:.0f} / {r95:.0f} ({ratio(r95, s95)}) | "
                     f"{s['p95']:.0f} | {s['util']:.2f} / {r['util']:.2f} | "
                     f"{s['target']:.0f} / {r['target']:.0f} |")
        if cap is None:
            whole = (s95, r95, s["util"], r["util"])
        elif len(rows) > 2 and rfc8868._finite(r95) and \
                rfc8868._finite(s95) and s95 > 0 and r95 > 0:
            logs.append(math.log(r95 / s95))
            off = abs(logs[-1])
            if worst is None or off > worst[0]:
                worst = (off, what, ratio(r95, s95))
    if a.score:
        return {"whole": whole, "phases": logs}
    if a.summary:
        s95, r95, su, ru = whole
        print(f"| {name} | {seed} | {s95:.0f} / {r95:.0f} "
              f"({ratio(r95, s95)}) | "
              + (f"{worst[1]}: {worst[2]}" if worst else "–")
              + f" | {su:.2f} / {ru:.2f} |")
        return
    print(f"| {name} {a.controller}, seed {seed} | backlog p50 ms sim / real"
          " | backlog p95 sim / real (ratio) | per-packet p95 sim | "
          "util sim / real | mean target kbit/s sim / real |")
    print("|---|---|---|---|---|---|")
    print("\n".join(lines))
    return {"whole": whole, "phases": logs}


if __name__ == "__main__":
    main()
