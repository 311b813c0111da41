#!/usr/bin/python3
"""Real-time multipath benchmark (docs/multipath.md, "Real time").

Runs, in one invocation, single-path and two-path calls of the same real
pipeline (x264enc -> rtph264pay -> mprtpsched -> one rtpccsink per path ->
a loopback linkemu relay per path -> one rtpccsrc per path -> playoutbuffer
-> avdec_h264; rt-flow.py mprtp-send / mprtp-recv / relay, no root) and
reports, per configuration, side by side:

  * media rate on the wire: RTP bytes (headers and the MPRTP extension
    included) received per path and in total over the measurement window;
  * one-way delay p95: per media packet, from the payloader's output at the
    sender to its first arrival out of an rtpccsrc (both ends log wall time
    on the same machine: sender pacing, relay queue and propagation);
  * residual loss: media packets sent in the window that never reached the
    depayloader (lost on the links, or late and dropped by playoutbuffer);
  * the longest stretch without a decoded frame (after the first 3 s);
  * PSNR / SSIM of the aligned decoded stream (rt_quality.py: each frame's
    barcode, a lost frame shows as the last decoded one).

The configurations follow the shape of Table 6.1 of V. Singh's thesis
(Publication VII) and the multipath issue's interactive-call goal:

  a1/a2  gcc on each path; one 1 Mbit/s path vs two 1 Mbit/s paths
  b1/b2  constant rate 1 Mbit/s (controller=fixed, mprtpsched max-bitrate);
         one path with 0.5 % loss vs two paths with 0 / 0.5 % loss
  c1/c2  constant rate; one lossless path vs two paths at 25 / 175 ms

  tests/eval/rt/mprtp-eval.py --build build [--duration 60] [--configs a1,a2]
  tests/eval/rt/mprtp-eval.py --build build --smoke     # ~20 s, asserts

Wall-clock numbers on a shared machine: one run is one sample. --smoke runs
one short two-path call and checks behaviour only (both paths carried media,
video decoded, PSNR computed), no timing thresholds.
Run with the system python3 (GStreamer introspection).
"""
import argparse
import importlib.util
import json
import math
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PY = "/usr/bin/python3"
FLOW = os.path.join(HERE, "rt-flow.py")

_spec = importlib.util.spec_from_file_location(
    "rt_quality", os.path.join(HERE, "rt_quality.py"))
rt_quality = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt_quality)
_spec = importlib.util.spec_from_file_location(
    "rt_ci", os.path.join(HERE, "rt-ci.py"))
rt_ci = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt_ci)

# Paths: capacity kbit/s, one-way delay ms, forward loss probability. With
# constant rate two paths run at 625 kbit/s each on 1250 kbit/s links
# (every path is needed, as the thesis pools capacity) and the media
# requirement (mprtpsched max-bitrate) is 1 Mbit/s: the setting of the
# simulator's Table 6.1 run. One path runs at 1 Mbit/s itself: with one src
# pad mprtpsched is a passthrough and the aggregate is that path's target.
CBR = dict(controller="fixed", sched="max-bitrate=1000000")
CONFIGS = {
    "a1": dict(title="gcc, 1 path 1 Mbit/s", controller="gcc",
               paths=[(1000, 25, 0.0)], start="300", sched=""),
    "a2": dict(title="gcc, 2 paths 2 x 1 Mbit/s", controller="gcc",
               paths=[(1000, 25, 0.0), (1000, 25, 0.0)], start="300",
               sched=""),
    "b1": dict(CBR, title="1 Mbit/s, 1 path, 0.5 % loss",
               paths=[(2500, 25, 0.005)], start="1000"),
    "b2": dict(CBR, title="1 Mbit/s, 2 paths, 0 / 0.5 % loss",
               paths=[(1250, 25, 0.0), (1250, 25, 0.005)], start="625"),
    "c1": dict(CBR, title="1 Mbit/s, 1 path, no loss",
               paths=[(2500, 25, 0.0)], start="1000"),
    "c2": dict(CBR, title="1 Mbit/s, 2 paths 25 / 175 ms",
               paths=[(1250, 25, 0.0), (1250, 175, 0.0)], start="625"),
}
QUEUE_MS = 300


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def read_seq(path):
    """[(t, seq16, size)] of a SeqLog."""
    out = []
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) == 3:
                out.append((float(f[0]), int(f[1]), int(f[2])))
    return out


def run_config(name, cfg, a, env, port_base, out):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    n = len(cfg["paths"])
    rx = [port_base + 10 * i for i in range(n)]
    listen = [p + 2 for p in rx]
    bind = [p + 4 for p in rx]
    t0 = time.time() + 4.0 + n
    dur = a.duration
    common = ["--t0", f"{t0:.3f}", "--stop", str(dur)]
    geo = ["--width", str(a.width), "--height", str(a.height),
           "--fps", str(a.fps)]
    procs = []

    def spawn(argv, log):
        f = open(os.path.join(d, log), "w")
        procs.append((subprocess.Popen(argv, stdout=f,
                                       stderr=subprocess.STDOUT, env=env),
                       log))
    for i, (kbps, delay, loss) in enumerate(cfg["paths"]):
        fwd = (f"rate={kbps} delay={delay} queue-ms={QUEUE_MS} "
               f"seed={a.seed + i}" + (f" loss={loss}" if loss else ""))
        spawn([PY, FLOW, "relay"] + common +
              ["--csv", os.path.join(d, f"path{i}-link.csv"),
               "--listen", str(listen[i]), "--to-port", str(rx[i]),
               "--sender-port", str(bind[i]), "--forward", fwd,
               "--reverse", f"delay={delay}"], f"relay{i}.log")
    seq_rx = os.path.join(d, "rcv-seq")
    spawn([PY, FLOW, "mprtp-recv"] + common + geo +
          ["--ports", ",".join(map(str, rx)), "--seq-log", seq_rx,
           "--frames", os.path.join(d, "rcv-frames.csv"),
           "--raw", os.path.join(d, "rcv.yuv"), "--playout", a.playout],
          "recv.log")
    while not os.path.exists(seq_rx + ".ready") and time.time() < t0 - 0.5:
        time.sleep(0.05)
    spawn([PY, FLOW, "mprtp-send"] + common + geo +
          ["--ports", ",".join(map(str, listen)),
           "--bind-ports", ",".join(map(str, bind)),
           "--controller", cfg["controller"], "--start-kbps", cfg["start"],
           "--sched-props", cfg["sched"], "--key-int-s", str(a.key_int_s),
           "--csv", os.path.join(d, "snd.csv"),
           "--seq-log", os.path.join(d, "snd-seq"),
           "--frames", os.path.join(d, "snd-frames.csv")], "send.log")
    failed = []
    for p, log in procs:
        try:
            rc = p.wait(timeout=t0 + dur + 30 - time.time())
        except subprocess.TimeoutExpired:
            p.kill()
            rc = -9
        if rc != 0:
            failed.append(f"{log} exited {rc}")
    res = analyse(d, t0, a, n)
    res.update(name=name, title=cfg["title"], links=cfg["paths"],
               failed=failed)
    if not a.keep:
        for f in ("rcv.yuv",):
            if os.path.exists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
    return res


def analyse(d, t0, a, n):
    w0, w1 = t0 + a.warmup, t0 + a.duration - 1.0
    sent = read_seq(os.path.join(d, "snd-seq"))
    send_t = {}
    for t, s, _ in sent:
        send_t.setdefault(s, t)     # < 65536 packets per run: no wrap clash
    first = {}
    paths = []
    for i in range(n):
        arr = read_seq(os.path.join(d, f"rcv-seq.path{i}"))
        inwin = [x for x in arr if w0 <= x[0] < w1]
        owd = [(t - send_t[s]) * 1000 for t, s, _ in arr
               if s in send_t and w0 <= send_t[s] < w1]
        paths.append({"kbps": sum(x[2] for x in inwin) * 8 / 1000 /
                      (w1 - w0), "packets": len(arr),
                      "owd_p95_ms": pct(owd, 0.95)})
        for t, s, _ in arr:
            if s not in first or t < first[s]:
                first[s] = t
    post = {s for _, s, _ in read_seq(os.path.join(d, "rcv-seq.post"))}
    win = [s for s, t in send_t.items() if w0 <= t < w1]
    lost = [s for s in win if s not in first]
    late = [s for s in win if s in first and s not in post]
    owd = [(first[s] - send_t[s]) * 1000 for s in win if s in first]
    res = {"paths": paths,
           "kbps": sum(p["kbps"] for p in paths),
           "owd_p95_ms": pct(owd, 0.95), "owd_mean_ms":
           sum(owd) / len(owd) if owd else float("nan"),
           "media_packets": len(win),
           "lost_pct": 100.0 * len(lost) / max(1, len(win)),
           "late_pct": 100.0 * len(late) / max(1, len(win)),
           "residual_pct": 100.0 * (len(lost) + len(late)) / max(1, len(win))}
    # longest stretch without a decoded frame, after the first 3 s
    disp = []
    fr = os.path.join(d, "rcv-frames.csv")
    if os.path.exists(fr):
        disp = [float(r.split(",")[2]) for r in list(open(fr))[1:]
                if r.strip()]
    disp = [t for t in disp if t >= t0 + 3.0]
    res["max_gap_ms"] = max((b - x for x, b in zip(disp, disp[1:])),
                            default=float("nan")) * 1000
    # the sender's aggregate target and encoder rate over the window
    rows = []
    sc = os.path.join(d, "snd.csv")
    if os.path.exists(sc):
        for line in list(open(sc))[1:]:
            f = line.strip().split(",")
            if len(f) >= 3 and a.warmup <= float(f[0]) < a.duration - 1.0:
                rows.append((float(f[1]), float(f[2])))
    res["aggregate_target_kbps"] = (sum(r[0] for r in rows) / len(rows)
                                    if rows else float("nan"))
    res["encoder_kbps"] = (sum(r[1] for r in rows) / len(rows)
                           if rows else float("nan"))
    try:
        q = rt_quality.analyse(os.path.join(d, "snd-frames.csv"), fr,
                               os.path.join(d, "rcv.yuv"), a.width, a.height,
                               a.fps, os.path.join(d, "quality"))
    except Exception as e:     # a broken run still reports its transport
        q = {"error": str(e)}
    # the same mean over the frames captured in the measurement window:
    # the aligned stream's slots are the sent frames from the first one
    # shown on, so slot k is sent frame k + (sent - slots)
    sf = os.path.join(d, "snd-frames.csv")
    cap = [float(r.split(",")[1]) for r in list(open(sf))[1:]
           if r.strip()] if os.path.exists(sf) else []
    for key in ("psnr", "ssim"):
        per = q.pop(f"{key}_per_frame", [])
        off = len(cap) - len(per)
        win = [v for k, v in enumerate(per)
               if 0 <= k + off < len(cap) and w0 <= cap[k + off] < w1]
        q[f"{key}_window"] = sum(win) / len(win) if win else float("nan")
    res["quality"] = q
    return res


def fmt(x, f="{:.1f}"):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) \
        else f.format(x)


def table(results):
    lines = ["| config | wire rate, total (per path) kbit/s | encoder kbit/s "
             "| one-way p95 ms (per path) | residual loss: lost + late | "
             "longest frame gap ms | PSNR-Y dB (SSIM) in the window; "
             "whole call | "
             "frames decoded / sent |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        q = r["quality"]
        per = " / ".join(fmt(p["kbps"], "{:.0f}") for p in r["paths"])
        pd = " / ".join(fmt(p["owd_p95_ms"]) for p in r["paths"])
        lines.append(
            f"| {r['name']}: {r['title']} | {fmt(r['kbps'], '{:.0f}')} "
            f"({per}) | {fmt(r['encoder_kbps'], '{:.0f}')} | "
            f"{fmt(r['owd_p95_ms'])} ({pd}) | "
            f"{fmt(r['residual_pct'], '{:.3f}')} % "
            f"({fmt(r['lost_pct'], '{:.3f}')} + "
            f"{fmt(r['late_pct'], '{:.3f}')}) | "
            f"{fmt(r['max_gap_ms'], '{:.0f}')} | "
            f"{fmt(q.get('psnr_window'), '{:.2f}')} "
            f"({fmt(q.get('ssim_window'), '{:.4f}')}); "
            f"{fmt(q.get('psnr_y_mean'), '{:.2f}')} | "
            f"{q.get('frames_decoded', '—')} / "
            f"{q.get('frames_sent', '—')} |")
    return "\n".join(lines)


def goals(by):
    """The issue's and the thesis' comparisons, where both halves ran."""
    out = []
    if "a1" in by and "a2" in by:
        d = by["a2"]["owd_p95_ms"] - by["a1"]["owd_p95_ms"]
        out.append(f"(a) aggregate {by['a2']['kbps']:.0f} kbit/s (goal "
                   f">= 1800), p95 one-way {d:+.1f} ms vs one path "
                   f"(goal <= +20)")
    if "b1" in by and "b2" in by:
        out.append(f"(b) residual loss {by['b2']['residual_pct']:.3f} % vs "
                   f"{by['b1']['residual_pct']:.3f} % on one path (thesis "
                   f"0.24 vs 0.49), PSNR "
                   f"{fmt(by['b2']['quality'].get('psnr_window'), '{:.2f}')}"
                   f" vs "
                   f"{fmt(by['b1']['quality'].get('psnr_window'), '{:.2f}')}"
                   f" dB")
    if "c1" in by and "c2" in by:
        p1 = by["c1"]["quality"].get("psnr_window", float("nan"))
        p2 = by["c2"]["quality"].get("psnr_window", float("nan"))
        out.append(f"(c) PSNR with 150 ms skew {p2 - p1:+.2f} dB vs the "
                   f"lossless path (goal within 0.3 dB)")
    return out


def smoke_checks(r):
    q = r["quality"]
    tot = sum(p["packets"] for p in r["paths"])
    return [
        ("both paths carried media (each >= 10 % of the packets)",
         len(r["paths"]) == 2 and all(p["packets"] >= 0.1 * tot
                                      for p in r["paths"])),
        ("media packets sent in the window", r["media_packets"] > 0),
        ("video decoded: > 60 % of sent frames",
         q.get("frames_decoded", 0) > 0.6 * q.get("frames_sent", 1)),
        ("PSNR computed", not math.isnan(q.get("psnr_y_mean",
                                                float("nan")))),
        ("no process failed", not r["failed"]),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", default=os.path.join(SRC, "build"))
    p.add_argument("--out", default=None,
                   help="default BUILD/mprtp-rt-eval")
    p.add_argument("--configs", default=",".join(CONFIGS))
    p.add_argument("--duration", type=float, default=60.0,
                   help="seconds per configuration")
    p.add_argument("--warmup", type=float, default=None,
                   help="start of the measurement window (default a third "
                   "of --duration)")
    p.add_argument("--port-base", type=int, default=None,
                   help="default: random in 20000-31000 (127.0.0.1 only)")
    p.add_argument("--seed", type=int, default=1, help="linkemu loss seed")
    p.add_argument("--width", type=int, default=480)
    p.add_argument("--height", type=int, default=270)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--key-int-s", type=float, default=4.0)
    p.add_argument("--playout",
                   default="mode=singh min-delay=200 max-delay=400",
                   help="playoutbuffer properties")
    p.add_argument("--keep", action="store_true",
                   help="keep the decoded raw video")
    p.add_argument("--smoke", action="store_true",
                   help="one short two-path call with behavioural checks")
    a = p.parse_args()
    for tool in ("ffmpeg",):
        if shutil.which(tool) is None:
            print(f"SKIP: {tool} not installed")
            return 77
    if a.smoke:
        a.configs = "a2"
        a.duration = 14.0
        a.width, a.height = 320, 180
    if a.warmup is None:
        a.warmup = 4.0 if a.smoke else a.duration / 3
    a.out = a.out or os.path.join(a.build, "mprtp-rt-eval" +
                                  ("-smoke" if a.smoke else ""))
    os.makedirs(a.out, exist_ok=True)
    env = rt_ci.sanitizer_env(a.build)
    env["GST_PLUGIN_PATH"] = env["GST_PLUGIN_PATH_1_0"] = \
        os.path.join(a.build, "plugins")
    env["GST_REGISTRY"] = env["GST_REGISTRY_1_0"] = \
        os.path.join(a.out, "registry.bin")
    if env.get("LD_PRELOAD") != os.environ.get("LD_PRELOAD") and \
            "MPRTP_EVAL_PRELOADED" not in os.environ:
        # a sanitizer build: this process loads the plugins too (the
        # quality analysis), so it needs the runtimes preloaded as well
        env["MPRTP_EVAL_PRELOADED"] = "1"
        os.execve(PY, [PY] + sys.argv, env)
    os.environ.update(env)
    for elem in ("mprtpsched", "x264enc", "avdec_h264"):
        if subprocess.run(["gst-inspect-1.0", elem], capture_output=True,
                          env=env).returncode != 0:
            print(f"SKIP: GStreamer element {elem} missing")
            return 77
    # below the kernel's ephemeral range (32768-), where the relays' and
    # others' automatically chosen ports live
    base = a.port_base or random.Random().randrange(20000, 31000, 100)
    results = []
    for k, name in enumerate(a.configs.split(",")):
        print(f"[mprtp-eval] {name}: {CONFIGS[name]['title']} "
              f"({a.duration:g} s, ports {base + 100 * k}+)", flush=True)
        results.append(run_config(name, CONFIGS[name], a, env,
                                  base + 100 * k, a.out))
    by = {r["name"]: r for r in results}
    text = (f"Measurement window {a.warmup:g}–{a.duration - 1:g} s of "
            f"{a.duration:g} s, {a.width}x{a.height}@{a.fps}, key frame every "
            f"{a.key_int_s:g} s, link queues {QUEUE_MS} ms, playoutbuffer "
            f"{a.playout}.\n\n" + table(results) + "\n" +
            "".join("\n* " + g for g in goals(by)) + "\n")
    print(text)
    open(os.path.join(a.out, "results.md"), "w").write(text)
    json.dump(results, open(os.path.join(a.out, "results.json"), "w"),
              indent=1)
    for r in results:
        for f in r["failed"]:
            print(f"[mprtp-eval] {r['name']}: {f} (see {a.out}/{r['name']})")
    if a.smoke:
        checks = smoke_checks(results[0])
        for n, ok in checks:
            print(("ok   " if ok else "FAIL ") + n)
        return 0 if all(ok for _, ok in checks) else 1
    return 1 if any(r["failed"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
