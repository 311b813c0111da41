#!/usr/bin/python3
"""CI: one shortened RFC 8867 5.1 call in real time (docs/realtime-eval.md).

Runs rt-eval.py on loopback through linkemu (no root): the 5.1 schedule
compressed 4x (1000 kbit/s, 2500 at 10 s, 600 at 15 s, 1000 at 20 s, 25 s),
50 ms each way, 300 ms drop-tail queue, our sender/receiver with the gcc
controller, then checks wide-margin behaviour: media flows, the rate
follows the link, the queue stays bounded, video decodes and its quality is
not destroyed. Timing goals are not asserted (2 shared cores); the full
suite is the benchmark command.

With --repair it checks NACK/RTX instead (docs/repair.md): two 7 s calls
on the 2 Mbit/s path of the matrix scenario loss-random with 2 % random
loss on the wire, one with repair (NACK/RTX, PLI) and one without; the
post-repair loss (what reaches the depayloader) and the frozen frames with
repair must be well below those without, and the checks a repaired call
must pass (post-repair loss under a quarter of the wire's, most losses
restored by RTX) are run on the call without repair too, where every one
must fail. Ratios and counts, no timing threshold.

  rt-ci.py [--repair] BUILD_ROOT [OUTDIR]   exit 0 pass, 1 fail, 77 skip
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def sanitizer_env(build):
    """A sanitizer build's plugins load into the (uninstrumented) system
    python only with the sanitizer runtimes preloaded."""
    env = dict(os.environ)
    try:
        opts = json.load(open(os.path.join(build, "meson-info",
                                           "intro-buildoptions.json")))
        san = next(o["value"] for o in opts if o["name"] == "b_sanitize")
    except (OSError, ValueError, StopIteration, KeyError):
        return env
    libs = []
    for key, lib in (("address", "libasan.so"), ("undefined", "libubsan.so")):
        if key in san:
            path = subprocess.run(["gcc", f"-print-file-name={lib}"],
                                  capture_output=True, text=True
                                  ).stdout.strip()
            if os.path.isabs(path):
                libs.append(path)
    if libs:
        env["LD_PRELOAD"] = ":".join(libs + [env.get("LD_PRELOAD", "")]
                                     ).strip(":")
        # python itself is not built to be leak-checked
        env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    return env


def recv_stats(path):
    """rtpccsrc's final stats line in a receiver log: {field: int}."""
    stats = {}
    try:
        text = open(path).read()
    except OSError:
        return stats
    for m in re.finditer(r"([a-z-]+)=\(guint64\)(\d+)", text):
        stats[m.group(1)] = int(m.group(2))
    return stats


WIRE_LOSS_PCT = 2.0


def repaired(m, st):
    """What a repaired call must show, in absolute terms (the loss put on
    the wire is known), so that the same checks can be run on the call
    without repair, where they must fail."""
    losses = st.get("repair-losses", 0)
    return [
        ("post-repair loss < 1/4 of the wire's %.1f %%" % WIRE_LOSS_PCT,
         m.get("post_repair_loss_pct", float("nan")) < WIRE_LOSS_PCT / 4),
        ("retransmissions restored >= half the losses rtpccsrc saw",
         losses > 0 and st.get("rtx-recovered", 0) >= losses / 2),
    ]


def repair_check(build, out, env):
    metrics, stats = {}, {}
    for rep in ("nack", "none"):
        r = subprocess.run(["/usr/bin/python3",
                            os.path.join(HERE, "rt-eval.py"),
                            "--matrix", "loss-random", "--seed", "1",
                            "--stacks", "ours", "--mode", "loopback",
                            "--scale", "0.12", "--build", build,
                            "--out", os.path.join(out, rep),
                            "--loss", "bernoulli:%g" % (WIRE_LOSS_PCT / 100),
                            "--repair", rep,
                            "--jitter-ms", "200", "--port-base", "23300"],
                           env=env)
        if r.returncode != 0:
            print(f"FAIL: rt-eval.py --repair {rep} exited {r.returncode}")
            return 1
        d = os.path.join(out, rep, "loss-random-ours")
        metrics[rep] = json.load(open(os.path.join(d, "metrics.json")))
        stats[rep] = recv_stats(os.path.join(d, "flow0-recv.log"))
    loss = {k: v.get("post_repair_loss_pct", float("nan"))
            for k, v in metrics.items()}
    frozen = {k: v.get("freeze_pct", float("nan"))
              for k, v in metrics.items()}
    print(f"post-repair loss %: with repair {loss['nack']:.3f}, "
          f"without {loss['none']:.3f}")
    print(f"frozen frames %: with repair {frozen['nack']:.1f}, "
          f"without {frozen['none']:.1f}")
    print(f"rtpccsrc with repair: {stats['nack'].get('repair-losses', 0)} "
          f"losses, {stats['nack'].get('rtx-recovered', 0)} restored by RTX")
    checks = [
        # the loss must have happened for the ratio to mean anything
        ("without repair: post-repair loss >= 0.5 %", loss["none"] >= 0.5),
        ("with repair: post-repair loss < 1/4 of it",
         loss["nack"] < 0.25 * loss["none"]),
        # frames freeze without repair (nothing repairs the picture until
        # the next key frame); with it at most half as many, 1 point slack
        # for a loaded machine
        ("without repair: frozen frames >= 2 %", frozen["none"] >= 2),
        ("with repair: frozen frames <= half of it + 1",
         frozen["nack"] <= frozen["none"] / 2 + 1),
    ]
    checks += [("with repair: " + n, ok)
                for n, ok in repaired(metrics["nack"], stats["nack"])]
    # the run without repair fails those same checks: they can fail
    checks.append(("without repair: fails every one of them",
                   not any(ok for _n, ok in
                           repaired(metrics["none"], stats["none"]))))
    for n, ok in checks:
        print(("ok   " if ok else "FAIL ") + n)
    return 0 if all(ok for _n, ok in checks) else 1


def main():
    args = sys.argv[1:]
    repair = "--repair" in args
    args = [x for x in args if x != "--repair"]
    build = os.path.abspath(args[0])
    out = os.path.abspath(args[1]) if len(args) > 1 else \
        os.path.join(build, "tests", "eval", "rt",
                     "ci-repair-out" if repair else "ci-out")
    env = sanitizer_env(build)
    for tool in ("ffmpeg", "gst-inspect-1.0"):
        if not shutil.which(tool):
            print(f"SKIP: {tool} not installed")
            return 77
    for elem in ("x264enc", "avdec_h264"):
        if subprocess.run(["gst-inspect-1.0", elem], capture_output=True,
                          env=env).returncode != 0:
            print(f"SKIP: GStreamer element {elem} missing")
            return 77
    if repair:
        return repair_check(build, out, env)
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "rt-eval.py"),
                        "--cases", "5.1", "--stacks", "ours", "--mode",
                        "loopback", "--scale", "0.25", "--build", build,
                        "--out", out, "--width", "320", "--height", "180",
                        # to see the checks fail: RTPCC_RT_CI_CONTROLLER=fixed
                        "--controller",
                        os.environ.get("RTPCC_RT_CI_CONTROLLER", "gcc")],
                       env=env)
    if r.returncode != 0:
        print(f"FAIL: rt-eval.py exited {r.returncode}")
        return 1
    m = json.load(open(os.path.join(out, "5.1-ours", "metrics.json")))
    q = m["quality"][0]
    f = m["flows"][0]
    print(json.dumps({k: m.get(k) for k in ("util", "qdelay_mean_ms",
                                        "qdelay_p95_ms", "loss_pct",
                                        "post_repair_loss_pct", "ssim",
                                        "psnr", "freeze_pct", "g2g_p95_ms")},
                     indent=1))
    checks = [
        # the controller must use a fair part of the link, and not blow
        # far past it (recv over capacity, 200 ms samples, after 5 s)
        ("utilisation in [0.25, 1.1]", 0.25 <= m["util"] <= 1.1),
        ("mean received rate > 200 kbit/s",
         f.get("recv_kbps", f.get("recv_kbps_mean", 0)) > 200),
        # the queue is 300 ms at capacity; p95 at the limit all the time
        # would mean the controller ignores delay
        ("mean queue delay < 200 ms", m["qdelay_mean_ms"] < 200),
        ("loss < 10 %", m["loss_pct"] < 10),
        # after the jitter buffer: measured (not NaN) and bounded
        ("post-repair loss measured, < 10 %",
         0 <= m.get("post_repair_loss_pct", float("nan")) < 10),
        ("video decoded: > 60 % of sent frames",
         q.get("frames_decoded", 0) > 0.6 * q.get("frames_sent", 1)),
        ("freeze < 40 %", q.get("freeze_pct", 100) < 40),
        ("SSIM > 0.6", q.get("ssim_mean", 0) > 0.6),
        ("PSNR-Y > 18 dB", q.get("psnr_y_mean", 0) > 18),
        ("glass-to-glass p95 < 1500 ms", q.get("g2g_p95_ms", 1e9) < 1500),
    ]
    bad = [n for n, ok in checks if not ok]
    for n, ok in checks:
        print(("ok   " if ok else "FAIL ") + n)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
