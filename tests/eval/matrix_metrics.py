"""The scenario matrix's own metrics and aims over per-flow CSV columns, for
any run (simulated or real time). A mirror of eval_matrix_metrics() in
tests/eval/eval-matrix.c: change both together (test_matrix_metrics.py
checks they agree on simulator runs). docs/matrix.md defines the metrics.

    import rfc8868, matrix_metrics
    res = rfc8868.score(definition, rows_by_id)
    m = matrix_metrics.metrics(definition, rows_by_id, res)
    met = matrix_metrics.aims(definition, m, controller)
"""
import math

import rfc8868

EPS = 1e-9
RECOVERY_SHARE = 0.8
AFTER_S = 5.0
REACH_SHARE = 0.9
MEAN_ROWS = 5                   # 1 s of 200 ms rows


def _fwd(case, rows_by_id):
    """Forward media summed per row: t, send, recv, cap, active count."""
    media = [f for f in case.get("flows", [])
             if f.get("dir", "fwd") == "fwd" and int(f["id"]) in rows_by_id]
    n = max((len(rows_by_id[int(f["id"])]["time_s"]) for f in media),
            default=0)
    t, send, recv = [0.0] * n, [0.0] * n, [0.0] * n
    cap, act = [0.0] * n, [0] * n
    for f in media:
        r = rows_by_id[int(f["id"])]
        for k, tk in enumerate(r["time_s"]):
            t[k] = tk
            cap[k] = r["capacity_kbps"][k]
            if tk + EPS >= float(f["start"]) and tk < float(f["stop"]) - EPS:
                s, v = r["send_kbps"][k], r["recv_kbps"][k]
                send[k] += s if math.isfinite(s) else 0.0
                recv[k] += v if math.isfinite(v) else 0.0
                act[k] += 1
    return t, send, recv, cap, act


def _row_mean(x, k, n):
    v = x[k:min(n, k + MEAN_ROWS)]
    return sum(v) / len(v) if v else math.nan


def _index(t, at):
    for k, tk in enumerate(t):
        if tk >= at - EPS:
            return k
    return len(t)


def _ref(case, cap, act, k):
    mx = float(case.get("media", {}).get("max_kbps", rfc8868.MAX_KBPS))
    return min(max(act[k], 1) * mx, cap[k])


def _ref_mean(case, cap, act, k):
    return sum(_ref(case, cap, act, j) for j in range(k, k + MEAN_ROWS)) \
        / MEAN_ROWS


def _forward_tcp(case):
    return any(x.get("dir", "fwd") == "fwd" for x in case.get("tcp") or [])


def metrics(case, rows_by_id, res):
    """Matrix metrics of one run: `case` in rtpcc-eval --describe form,
    `res` what rfc8868.score returned for it. NaN: undefined here;
    math.inf: never (recovery, reach)."""
    s = res["summary"]
    out = {"util": s["util"], "media_util": s["media_util"],
           "qdelay_p95_ms": s["qdelay_p95_ms"],
           "qdelay_mean_ms": s["qdelay_mean_ms"],
           "pkt_p95_ms": math.nan, "loss_pct": s["loss_pct"],
           "jain_min": s["jain_min"], "share": s["media_share"],
           "conv_max_s": s["conv_max_s"], "recovery_s": math.nan,
           "util_after": math.nan}
    t, send, recv, cap, act = _fwd(case, rows_by_id)
    n = len(t)

    # outage ends: schedule steps from 0 to a positive rate
    sched = case.get("schedule") or []
    if not case.get("trace_file"):
        for i in range(1, len(sched)):
            at, kbps = float(sched[i][0]), float(sched[i][1])
            if float(sched[i - 1][1]) != 0 or kbps <= 0:
                continue
            nxt = float(sched[i + 1][0]) if i + 1 < len(sched) else \
                float(case["duration_s"])
            k0, kend = _index(t, at), min(_index(t, nxt), n)
            rec = math.inf
            for k in range(k0, kend - MEAN_ROWS + 1):
                if _row_mean(recv, k, kend) >= \
                        RECOVERY_SHARE * _row_mean(cap, k, kend):
                    rec = t[k] - at
                    break
            ka = min(kend, k0 + int(round(AFTER_S / rfc8868.INTERVAL_S)))
            rs, cs = sum(recv[k0:ka]), sum(cap[k0:ka])
            out["recovery_s"] = rec if math.isnan(out["recovery_s"]) else \
                max(out["recovery_s"], rec)
            if cs > 0:
                u = rs / cs
                out["util_after"] = u if math.isnan(out["util_after"]) \
                    else min(out["util_after"], u)

    # swings over the steady windows without TCP
    ratio = []
    for w in res["windows"]:
        if w["dir"] != "fwd" or w["tcp"]:
            continue
        for k in range(0, n - MEAN_ROWS + 1):
            if t[k] < w["t0"] - EPS or \
                    t[k] + MEAN_ROWS * rfc8868.INTERVAL_S > w["t1"] + EPS:
                continue
            ref = _ref_mean(case, cap, act, k)
            if ref > 0:
                ratio.append(_row_mean(send, k, n) / ref)
    out["swing_lo"] = rfc8868.percentile(ratio, 5)
    out["swing_hi"] = rfc8868.percentile(ratio, 95)

    # reach
    out["reach_s"] = math.nan
    if not _forward_tcp(case):
        start = min((float(f["start"]) for f in case.get("flows", [])
                     if f.get("dir", "fwd") == "fwd"), default=0.0)
        out["reach_s"] = math.inf
        for k in range(0, n - MEAN_ROWS + 1):
            if t[k] < start - EPS:
                continue
            ref = _ref_mean(case, cap, act, k)
            if ref > 0 and _row_mean(send, k, n) >= REACH_SHARE * ref:
                out["reach_s"] = t[k] - start
                break
    return out


def applies(case, aim, controller):
    cls = aim.get("class", "all")
    delay = controller in case.get("delay_based", [])
    return cls == "all" or (cls == "delay" and delay) or \
        (cls == "loss" and not delay) or cls == controller


def aims(case, m, controller):
    """[(aim text, value, met)] for the aims of `case` (rtpcc-matrix
    --describe) that apply to `controller`."""
    out = []
    for a in case.get("aims", []):
        if not applies(case, a, controller):
            continue
        v = m.get(a["metric"], math.nan)
        ok = not math.isnan(v) and (v >= a["value"] if a["op"] == ">="
                                    else v <= a["value"])
        out.append((a["text"], v, ok))
    return out
