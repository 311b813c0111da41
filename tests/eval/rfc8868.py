#!/usr/bin/env python3
"""RFC 8868 metrics over per-flow 200 ms CSV rows.

The same definitions as the simulator's C scoring (tests/eval/eval-score.c,
eval-metrics.c), line for line, so simulated and real-time runs are scored
alike. docs/results.md states the definitions.

Input: a case definition (the JSON of `rtpcc-eval --describe CASE`, also
embedded as "definition" in every simulator summary.json) and one CSV per
flow with the columns of SIM_RTPCC_CSV_HEADER (tests/sim/sim-rtpcc.h):
time_s,capacity_kbps,target_kbps,send_kbps,recv_kbps,queue_delay_ms,
loss_pct,rtt_ms[,...]; extra columns are ignored, "nan" is allowed.

    rfc8868.py OUT/5.1/gcc                 # a simulator output directory
    rfc8868.py --case case.json --flow 0=a.csv --flow 1=b.csv [--json out]

Library use: score(case, rows_by_flow_id) -> dict; read_csv(path);
jain, percentile, convergence_time, oscillation_swings, cv.
"""

import argparse
import csv
import json
import math
import os
import sys

INTERVAL_S = 0.2
SETTLE_S = 5.0
MIN_WINDOW_S = 2.0
CONV_TOL = 0.2
CONV_HOLD_S = 2.0
OSC_LOW = 0.5
OSC_HIGH = 1.5
OSC_WINDOW_S = 1.0
MAX_KBPS = 3000.0       # EVAL_MAX_BPS (definition "media"."max_kbps")
EPS = 1e-9

COLUMNS = ("time_s", "capacity_kbps", "target_kbps", "send_kbps",
           "recv_kbps", "queue_delay_ms", "loss_pct", "rtt_ms")


def _f(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def read_csv(path):
    """Columns of a per-flow CSV as lists of floats (missing: NaN)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    return {c: [_f(r.get(c)) for r in rows] for c in COLUMNS}


def _finite(x):
    return x is not None and math.isfinite(x)


def jain(xs):
    """(sum x)^2 / (n sum x^2); NaN for no values or all zero."""
    s = sum(xs)
    s2 = sum(x * x for x in xs)
    return s * s / (len(xs) * s2) if xs and s2 > 0 else math.nan


def percentile(xs, pct):
    """Nearest-rank percentile of the finite values; NaN if none."""
    v = sorted(x for x in xs if _finite(x))
    if not v:
        return math.nan
    k = int(math.ceil(pct / 100.0 * len(v)))
    return v[min(max(k, 1), len(v)) - 1]


def mean(xs):
    v = [x for x in xs if _finite(x)]
    return sum(v) / len(v) if v else math.nan


def convergence_time(t, x, interval, t_event, t_end, ref, tol, hold):
    """First row i (t[i] >= t_event) from which every 1 s moving average
    starting in [t[i], t[i] + hold] (and ending by t_end) is within
    ref * (1 +- tol); t[i] - t_event, or NaN."""
    w = max(1, int(math.floor(1.0 / interval + 0.5)))
    n = len(t)
    if not ref > 0:
        return math.nan
    for i in range(n):
        if t[i] < t_event - EPS:
            continue
        ok, checked = True, 0
        j = i
        while j < n and t[j] <= t[i] + hold + EPS:
            if j + w > n or t[j + w - 1] + interval > t_end + EPS:
                break
            s = sum(x[j:j + w]) / w
            if not _finite(s) or abs(s - ref) > tol * ref:
                ok = False
                break
            checked += 1
            j += 1
        if ok and checked > 0:
            return t[i] - t_event
        if t[i] + interval * w > t_end + EPS:
            break
    return math.nan


def oscillation_swings(t, x, t0, t1, low, high, window):
    """Low rows (x <= low) followed by high rows (x >= high), or the
    reverse, at most `window` s apart with no other extreme between."""
    last, last_t, swings = 0, 0.0, 0
    for ti, xi in zip(t, x):
        if ti < t0 or ti >= t1 or not _finite(xi):
            continue
        c = -1 if xi <= low else (1 if xi >= high else 0)
        if c == 0:
            continue
        if last == -c and ti - last_t <= window + EPS:
            swings += 1
        last, last_t = c, ti
    return swings


def cv(t, x, t0, t1):
    v = [xi for ti, xi in zip(t, x) if t0 <= ti < t1 and _finite(xi)]
    if len(v) < 2:
        return math.nan
    m = sum(v) / len(v)
    if m == 0:
        return math.nan
    return math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1)) / m


# ---------------------------------------------------------------------------
# Scoring a case run (mirror of eval_score)

class _Flow:
    def __init__(self, fid, kind, start, stop, rev=False, pause=None):
        self.id, self.kind, self.start, self.stop = fid, kind, start, stop
        self.reverse = rev
        self.pause_s, self.resume_s = (pause if pause else (-1.0, -1.0))
        self.rows = None

    @property
    def media(self):
        return self.kind == "media"


def _flows_from_case(case):
    flows = []
    for f in case.get("flows", []):
        flows.append(_Flow(int(f["id"]), "media", float(f["start"]),
                           float(f["stop"]), f.get("dir", "fwd") == "rev",
                           tuple(float(p) for p in f["pause"])
                           if f.get("pause") else None))
    for f in case.get("tcp", []):
        flows.append(_Flow(int(f["id"]), "tcp-" + f.get("kind", "long"),
                           float(f.get("start", 0.0)),
                           float(f.get("stop", case["duration_s"])),
                           f.get("dir", "fwd") == "rev"))
    flows.sort(key=lambda f: f.id)
    return flows


def _events(case, flows):
    ev = [0.0, float(case["duration_s"])]
    for key in ("schedule", "reverse_schedule"):
        for s in case.get(key) or []:
            ev.append(float(s[0]) if isinstance(s, (list, tuple))
                      else float(s["time_s"]))
    for f in flows:
        ev.append(f.start)
        if f.kind != "tcp-short":
            ev.append(f.stop)
        if f.pause_s >= 0:
            ev += [f.pause_s, f.resume_s]
    out = []
    for t in sorted(ev):
        if t < -EPS or t > case["duration_s"] + EPS:
            continue
        if out and abs(out[-1] - t) < EPS:
            continue
        out.append(t)
    return out


def _active(f, a, b):
    if f.start > a + EPS or f.stop < b - EPS:
        return False
    if f.pause_s >= 0 and f.pause_s < b - EPS and f.resume_s > a + EPS:
        return False
    return True


def _row_in(f, t, t0, t1):
    if t < t0 - EPS or t >= t1 - EPS:
        return False
    if (f.media and f.pause_s >= 0 and t >= f.pause_s - EPS
            and t < f.resume_s + SETTLE_S - EPS):
        return False
    return True


def _wmean(f, col, t0, t1):
    v = [x for t, x in zip(f.rows["time_s"], f.rows[col])
         if _row_in(f, t, t0, t1) and _finite(x)]
    return sum(v) / len(v) if v else math.nan


def _flow_stats(f):
    t0, t1 = f.start + SETTLE_S, f.stop
    r = f.rows
    st = {"id": f.id, "kind": f.kind, "dir": "rev" if f.reverse else "fwd",
          "send_kbps": _wmean(f, "send_kbps", t0, t1),
          "recv_kbps": _wmean(f, "recv_kbps", t0, t1),
          "target_kbps": _wmean(f, "target_kbps", t0, t1),
          "rtt_ms": _wmean(f, "rtt_ms", t0, t1)}
    sel, ls, ss = [], 0.0, 0.0
    for k, t in enumerate(r["time_s"]):
        if not _row_in(f, t, t0, t1):
            continue
        sel.append(r["queue_delay_ms"][k])
        ls += r["loss_pct"][k] * r["send_kbps"][k]
        ss += r["send_kbps"][k]
    st["loss_pct"] = ls / ss if ss > 0 else 0.0
    st["qdelay_mean_ms"] = mean(sel)
    st["qdelay_p50_ms"] = percentile(sel, 50)
    st["qdelay_p95_ms"] = percentile(sel, 95)
    st["qdelay_max_ms"] = percentile(sel, 100)
    return st


def _tcp_active(flows, a, b):
    # forward TCP only: TCP on the feedback path shares no bottleneck with
    # forward media
    return any(not f.media and not f.reverse and f.start < b - EPS
               and f.stop > a + EPS for f in flows)


def _ref(cap, n, max_kbps):
    return min(max_kbps, cap / max(n, 1))


def score(case, rows_by_id):
    """RFC 8868 metrics of one run: case definition + {flow id: columns}.
    Flows without rows are left out."""
    max_kbps = float(case.get("media", {}).get("max_kbps", MAX_KBPS))
    flows = [f for f in _flows_from_case(case) if f.id in rows_by_id]
    for f in flows:
        f.rows = rows_by_id[f.id]
    ev = _events(case, flows)
    stats = [_flow_stats(f) for f in flows]
    windows, conv = [], []
    wsum = usum = musum = jsum = jw = 0.0
    jain_min, swings, cv_max = math.nan, 0, math.nan

    for e in range(len(ev) - 1):
        a, b = ev[e], ev[e + 1]
        w0, w1 = a + SETTLE_S, b
        if w1 - w0 < MIN_WINDOW_S - EPS:
            continue
        for rev in (False, True):
            act = [f for f in flows
                   if f.media and f.reverse == rev and _active(f, a, b)]
            if not act:
                continue
            recv = [_wmean(f, "recv_kbps", w0, w1) for f in act]
            q = [x for f in act
                 for t, x in zip(f.rows["time_s"], f.rows["queue_delay_ms"])
                 if _row_in(f, t, w0, w1)]
            cap = _wmean(act[0], "capacity_kbps", w0, w1)
            if not cap > 0:
                continue        # an outage window has nothing to use
            tcp_on = (not rev) and _tcp_active(flows, w0, w1)
            tcp = 0.0
            if tcp_on:
                for f in flows:
                    if not f.media and not f.reverse:
                        m = _wmean(f, "recv_kbps", w0, w1)
                        tcp += m if _finite(m) else 0.0
            w = {"t0": w0, "t1": w1, "dir": "rev" if rev else "fwd",
                 "n_media": len(act), "tcp": tcp_on, "capacity_kbps": cap,
                 "util": (sum(recv) + tcp) / cap,
                 "media_util": sum(recv) / cap,
                 "jain": jain(recv) if len(act) >= 2 else math.nan,
                 "qdelay_p95_ms": percentile(q, 95), "cv_max": math.nan,
                 "swings": 0}
            if not tcp_on:
                ref = _ref(cap, len(act), max_kbps)
                for f in act:
                    c = cv(f.rows["time_s"], f.rows["send_kbps"], w0, w1)
                    if _finite(c):
                        w["cv_max"] = (max(w["cv_max"], c)
                                       if _finite(w["cv_max"]) else c)
                    w["swings"] += oscillation_swings(
                        f.rows["time_s"], f.rows["send_kbps"], w0, w1,
                        OSC_LOW * ref, OSC_HIGH * ref, OSC_WINDOW_S)
            windows.append(w)
            wsum += w1 - w0
            usum += w["util"] * (w1 - w0)
            musum += w["media_util"] * (w1 - w0)
            if _finite(w["jain"]):
                jsum += w["jain"] * (w1 - w0)
                jw += w1 - w0
                jain_min = (min(jain_min, w["jain"]) if _finite(jain_min)
                            else w["jain"])
            swings += w["swings"]
            if _finite(w["cv_max"]):
                cv_max = (max(cv_max, w["cv_max"]) if _finite(cv_max)
                          else w["cv_max"])

    for f in flows:
        if not f.media:
            continue
        t, x, caps = (f.rows["time_s"], f.rows["send_kbps"],
                      f.rows["capacity_kbps"])
        for e in range(len(ev) - 1):
            a, b = ev[e], ev[e + 1]
            if (a < f.start - EPS or a >= f.stop - EPS
                    or b - a < MIN_WINDOW_S - EPS or not _active(f, a, b)
                    or (not f.reverse and _tcp_active(flows, a, b))):
                continue
            n = sum(1 for g in flows if g.media and g.reverse == f.reverse
                    and _active(g, a, b))
            k = int(math.floor(a / INTERVAL_S + 0.5))
            if k >= len(t):
                continue
            ref = _ref(caps[k], n, max_kbps)
            if not ref > 0:
                continue        # an outage: nothing to converge to
            conv.append({"flow": f.id, "time": a, "next": b, "ref_kbps": ref,
                         "conv_s": convergence_time(
                             t, x, INTERVAL_S, a, b, ref, CONV_TOL,
                             CONV_HOLD_S)})

    media = [s for s in stats if s["kind"] == "media"]

    def worst(key):
        v = [s[key] for s in media if _finite(s[key])]
        return max(v) if v else math.nan

    cs = [c["conv_s"] for c in conv if _finite(c["conv_s"])]
    summary = {
        "util": usum / wsum if wsum > 0 else math.nan,
        "media_util": musum / wsum if wsum > 0 else math.nan,
        "jain_min": jain_min,
        "jain_mean": jsum / jw if jw > 0 else math.nan,
        "qdelay_mean_ms": mean([s["qdelay_mean_ms"] for s in media]),
        "qdelay_p95_ms": worst("qdelay_p95_ms"),
        "qdelay_max_ms": worst("qdelay_max_ms"),
        "loss_pct": worst("loss_pct"),
        "conv_mean_s": sum(cs) / len(cs) if cs else math.nan,
        "conv_max_s": max(cs) if cs else math.nan,
        "conv_n": len(conv), "conv_missed": len(conv) - len(cs),
        "swings": swings, "cv_max": cv_max,
        "media_share": math.nan, "media_kbps": math.nan,
        "tcp_kbps": math.nan,
    }
    if _tcp_active(flows, 0.0, case["duration_s"]):
        t0 = min(f.start + SETTLE_S for f in flows
                 if f.media and not f.reverse)
        med = tcp = 0.0
        for f in flows:
            if f.reverse:
                continue
            m = _wmean(f, "recv_kbps", t0, case["duration_s"])
            if not _finite(m):
                continue
            if f.media:
                med += m
            else:
                tcp += m
        summary.update(media_kbps=med, tcp_kbps=tcp,
                       media_share=med / (med + tcp) if med + tcp > 0
                       else math.nan)
    return {"summary": summary, "flows": stats, "windows": windows,
            "convergence": conv}


def score_dir(path):
    """Score a simulator output directory (summary.json + flow<i>.csv)."""
    with open(os.path.join(path, "summary.json")) as fh:
        s = json.load(fh)
    case = s["definition"]
    rows = {}
    for f in s["flows"]:
        p = os.path.join(path, f["csv"])
        if os.path.exists(p):
            rows[int(f["id"])] = read_csv(p)
    return score(case, rows)


def _clean(o):
    """JSON without NaN (null instead)."""
    if isinstance(o, float):
        return o if math.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_clean(v) for v in o]
    return o


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", help="rtpcc-eval output directory")
    ap.add_argument("--case", help="case definition JSON file")
    ap.add_argument("--flow", action="append", default=[],
                    help="ID=path.csv (with --case)")
    ap.add_argument("--json", help="write the metrics here")
    a = ap.parse_args(argv)
    if a.dir:
        res = score_dir(a.dir)
    elif a.case:
        with open(a.case) as fh:
            case = json.load(fh)
        rows = {}
        for spec in a.flow:
            fid, _, p = spec.partition("=")
            rows[int(fid)] = read_csv(p)
        res = score(case, rows)
    else:
        ap.error("give an output directory or --case and --flow")
    text = json.dumps(_clean(res), indent=1)
    if a.json:
        with open(a.json, "w") as fh:
            fh.write(text + "\n")
    else:
        print(json.dumps(_clean(res["summary"]), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
