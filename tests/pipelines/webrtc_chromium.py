#!/usr/bin/python3
"""A call between headless Chromium and our webrtcbin sender (rtpccbwe,
fed by Chromium's transport-wide CC feedback), through a bottleneck.

  ns ${P}s (10.77.1.1)  ── veth ──  ns ${P}r (10.77.2.1)
  pipelines/rtpcc-webrtc.py          chromium --headless=new
    VP8 → webrtcbin [rtpccbwe] ──tbf s0──▶ decodes ours (getStats)
    decodes Chromium's ◀──tbf r0── its own VP8 sender (fake camera)
    HTTP: the page, SDP offer/answer, the page's getStats every 500 ms

Two network namespaces (tests/eval/rt/netns.sh up2, prefix wb-<pid>-)
joined by a veth with a tbf bottleneck in each direction, both following
the same capacity schedule; everything else stays inside them. The page
is served by the sender (in its namespace), so nothing but the two
namespaces is involved; they are removed afterwards.

Checks (tolerant: a loaded 2-core machine): Chromium keeps decoding our
video (every stall over within 5 s, 8 s right after a capacity change;
stalls a third of the run at most; a third of the frames at least); our
target
after the capacity drop is under 0.8 × the target before and within
[0.25, 1.3] × the new capacity; the session's TWCC reports all match our
packets; our receiver decodes Chromium's video (the other direction,
stock webrtcbin behaviour). It prints both senders side by side: ours
(target, send rate, RTT) and Chromium's (availableOutgoingBitrate, its
send rate, round-trip time), per phase.

  webrtc_chromium.py BUILD_ROOT SOURCE_ROOT [--long] [--markdown]

--long: the benchmark for docs/webrtc.md (three 30 s phases). Needs root
(network namespaces), chromium, and GStreamer's webrtcbin and nice
plugins; without root or chromium it is skipped (exit 77).
"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
SENDER_IP = "10.77.1.1"
HIGH, LOW = 1500, 500           # kbit/s
QUEUE_MS = 200
SETTLE = 4.0                    # s after a change not counted in a phase
TRANSIENT = 6.0                 # s after a change a long stall may start
# both senders' picture: small enough for two encoders, two decoders and a
# browser on a loaded 2-core machine
WIDTH, HEIGHT, FPS = 480, 270, 20


def schedule(long_run):
    """(start, kbit/s) phases after the warm-up; then the end time."""
    warm = 6.0
    if long_run:
        return [(0, HIGH), (warm, HIGH), (warm + 30, LOW),
                (warm + 60, HIGH)], warm + 90
    return [(0, HIGH), (warm, HIGH), (warm + 12, LOW)], warm + 26


def sh(*cmd, check=True):
    return subprocess.run(cmd, check=check, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def sanitizer_env(build_root, src_root):
    """The environment our sender needs to load a sanitizer build's
    plugin into the system python (rt-ci.py's rule, shared)."""
    spec = importlib.util.spec_from_file_location(
        "rt_ci", os.path.join(src_root, "tests/eval/rt/rt-ci.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.sanitizer_env(build_root)


def chromium_binary():
    for c in ("chromium", "chromium-browser"):
        p = shutil.which(c)
        if p:
            return p
    return None


def prerequisites():
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    if not chromium_binary():
        return "chromium not installed"
    for tool in ("ip", "tc"):
        if not shutil.which(tool):
            return f"{tool} not installed"
    return None


class Net:
    """The two namespaces and their bottlenecks (netns.sh)."""

    def __init__(self, src_root):
        self.script = os.path.join(src_root, "tests/eval/rt/netns.sh")
        self.prefix = f"wb-{os.getpid()}-"

    def up(self):
        sh(self.script, "up2", self.prefix)

    def rate(self, kbps):
        # forward (ours → Chromium) on s0, reverse (Chromium's) on r0
        sh(self.script, "rate", str(kbps), str(QUEUE_MS), "s0", self.prefix,
           "s")
        sh(self.script, "rate", str(kbps), str(QUEUE_MS), "r0", self.prefix,
           "r")

    def drops(self, dev, ns):
        out = sh(self.script, "stats", dev, self.prefix, ns).stdout.split()
        return int(out[1]) if len(out) > 1 else 0

    def down(self):
        sh(self.script, "down", self.prefix, check=False)

    def exec_in(self, ns, cmd, **kw):
        return subprocess.Popen(["ip", "netns", "exec", self.prefix + ns]
                                + cmd, **kw)


def load(path):
    ours, page = [], []
    with open(path) as f:
        for line in f:
            try:
                o = json.loads(line)
            except ValueError:
                continue
            (ours if o.get("src") == "rtpccbwe" else page).append(o)
    return ours, page


def one(o, kind, key, want_kind="video"):
    for s in o.get(kind, []):
        if want_kind is None or s.get("kind", want_kind) == want_kind:
            if key in s:
                return s[key]
    return None


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def rate_series(samples, t_of, value_of):
    """(t, bit/s) from a cumulative byte counter."""
    out, prev = [], None
    for s in samples:
        v = value_of(s)
        if v is None:
            continue
        t = t_of(s)
        if prev and t > prev[0]:
            out.append((t, (v - prev[1]) * 8 / (t - prev[0])))
        prev = (t, v)
    return out


def in_phase(t, a, b):
    return a + SETTLE <= t < b


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build_root")
    ap.add_argument("source_root")
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--keep", help="copy the run's JSON log here")
    a = ap.parse_args()

    why = prerequisites()
    if why:
        print(f"SKIP: {why}")
        return SKIP
    phases, end = schedule(a.long)
    tmp = tempfile.mkdtemp(prefix="wb-chromium-")
    log = os.path.join(tmp, "log.jsonl")
    ready = os.path.join(tmp, "ready")
    net = Net(a.source_root)
    gst = chrome = None
    t0 = time.time()
    drops_fwd = drops_rev = -1
    try:
        try:
            net.up()
        except subprocess.CalledProcessError as e:
            print(f"SKIP: cannot make network namespaces: {e.stderr}")
            return SKIP
        net.rate(phases[0][1])
        env = sanitizer_env(a.build_root, a.source_root)
        env["GST_PLUGIN_PATH_1_0"] = os.path.join(a.build_root, "plugins")
        # the preload only for our sender, not for ip(8)
        preload = [f"LD_PRELOAD={env.pop('LD_PRELOAD')}"] \
            if "LD_PRELOAD" in env else []
        gst = net.exec_in("s", ["env"] + preload + [
            "/usr/bin/python3",
            os.path.join(a.source_root, "pipelines/rtpcc-webrtc.py"),
            "--address", SENDER_IP, "--port", "0", "--ready-file", ready,
            "--log", log, "--receive", "--duration", str(end + 8),
            "--width", str(WIDTH), "--height", str(HEIGHT), "--fps", str(FPS)],
            env=env)
        for _ in range(300):
            if os.path.exists(ready) or gst.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(ready):
            print("FAIL: the webrtcbin sender did not start")
            return 1
        port = int(open(ready).read())
        # Chromium's camera shows the picture we send (the same moving
        # pattern, looped), so both encoders face the same content
        y4m = os.path.join(tmp, "camera.y4m")
        plain = {k: v for k, v in os.environ.items()
                 if not k.startswith("GST_PLUGIN_PATH")}
        plain["GST_REGISTRY_1_0"] = os.path.join(tmp, "registry.bin")
        subprocess.run([
            "gst-launch-1.0", "-q", "videotestsrc", f"num-buffers={5 * FPS}",
            "pattern=smpte", "horizontal-speed=4", "!",
            f"video/x-raw,format=I420,width={WIDTH},height={HEIGHT},"
            f"framerate={FPS}/1", "!", "y4menc", "!", "filesink",
            f"location={y4m}"], check=True, env=plain,
            stdout=subprocess.DEVNULL)
        chrome = net.exec_in("r", [
            chromium_binary(), "--headless=new", "--no-sandbox",
            "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--mute-audio",
            "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={y4m}",
            # host candidates as plain addresses, not mDNS names that
            # libnice cannot resolve
            "--disable-features=WebRtcHideLocalIpsWithMdns",
            "--autoplay-policy=no-user-gesture-required",
            # getUserMedia wants a secure context: the page is plain HTTP
            # on the other namespace's address
            f"--unsafely-treat-insecure-origin-as-secure=http://{SENDER_IP}:"
            f"{port}",
            f"--user-data-dir={os.path.join(tmp, 'profile')}",
            f"http://{SENDER_IP}:{port}/?send=1&stats=1&w={WIDTH}&h={HEIGHT}"
            f"&fps={FPS}"],
            env=dict(os.environ, HOME=tmp), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        t0 = time.time()
        for start, kbps in phases[1:]:
            time.sleep(max(0, t0 + start - time.time()))
            net.rate(kbps)
        time.sleep(max(0, t0 + end - time.time()))
        drops_fwd = net.drops("s0", "s")
        drops_rev = net.drops("r0", "r")
    finally:
        if chrome and chrome.poll() is None:
            # Chromium and its helper processes (its own session)
            try:
                os.killpg(chrome.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        if gst and gst.poll() is None:
            gst.terminate()
        for p in (chrome, gst):
            if p:
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        net.down()

    ours, page = load(log) if os.path.exists(log) else ([], [])
    if a.keep and os.path.exists(log):
        shutil.copy(log, a.keep)
    shutil.rmtree(tmp, ignore_errors=True)
    return report(a, phases, end, t0, ours, page, drops_fwd, drops_rev)


def report(a, phases, end, t0, ours, page, drops_fwd, drops_rev):
    errors = [p.get("error") for p in page if "error" in p]
    page = [p for p in page if "t" in p]
    rt = [(o["wall"] - t0, o) for o in ours]
    # the page's own clock (the machine's): its POSTs cross the bottleneck
    # and arrive late and bunched
    pt = [(p["t"] - t0, p) for p in page]
    bounds = [(phases[i][0], phases[i + 1][0] if i + 1 < len(phases) else
               end, phases[i][1]) for i in range(1, len(phases))]

    decoded = [(t, one(p, "inbound-rtp", "framesDecoded")) for t, p in pt]
    recv = rate_series(pt, lambda x: x[0],
                       lambda x: one(x[1], "inbound-rtp", "bytesReceived"))
    csend = rate_series(pt, lambda x: x[0],
                        lambda x: one(x[1], "outbound-rtp", "bytesSent"))
    rows = []
    for (b0, b1, kbps) in bounds:
        rows.append({
            "phase": f"{b0:.0f}-{b1:.0f} s",
            "capacity": kbps,
            "ours_target": mean([o["target-bitrate"] for t, o in rt
                                 if in_phase(t, b0, b1)]) / 1000,
            "ours_send": mean([o["send-rate"] for t, o in rt
                               if in_phase(t, b0, b1)]) / 1000,
            "ours_rtt": mean([o["rtt"] for t, o in rt
                              if in_phase(t, b0, b1) and o["rtt"]]) / 1e6,
            "chrome_recv": mean([v for t, v in recv
                                 if in_phase(t, b0, b1)]) / 1000,
            "chrome_aob": mean([one(p, "candidate-pair",
                                    "availableOutgoingBitrate", None)
                                for t, p in pt if in_phase(t, b0, b1)]) / 1000,
            "chrome_send": mean([v for t, v in csend
                                 if in_phase(t, b0, b1)]) / 1000,
            "chrome_rtt": mean([one(p, "candidate-pair",
                                    "currentRoundTripTime", None)
                                for t, p in pt if in_phase(t, b0, b1)]) * 1000,
        })

    print(f"webrtc call, headless Chromium <-> webrtcbin + rtpccbwe (gcc); "
          f"both directions through tbf ({QUEUE_MS} ms queue); tbf drops: "
          f"ours {drops_fwd}, Chromium's {drops_rev}")
    hdr = ("| phase | capacity kbit/s | ours: target | ours: sent | "
           "ours: RTT ms | Chromium received ours | Chromium: "
           "availableOutgoingBitrate | Chromium: sent | Chromium: RTT ms |")
    print(hdr)
    print("|" + "---|" * 9)
    for r in rows:
        print(f"| {r['phase']} | {r['capacity']} | {r['ours_target']:.0f} | "
              f"{r['ours_send']:.0f} | {r['ours_rtt']:.0f} | "
              f"{r['chrome_recv']:.0f} | {r['chrome_aob']:.0f} | "
              f"{r['chrome_send']:.0f} | {r['chrome_rtt']:.0f} |")
    last = ours[-1] if ours else {}
    print(f"ours: TWCC events {last.get('twcc-events')}, unmatched "
          f"{last.get('twcc-unmatched')}, reported received "
          f"{last.get('reported-received')} lost {last.get('reported-lost')}, "
          f"pacer drops {last.get('pacer-drops')}, NACKed packets "
          f"{last.get('rtx-requests')} (resent {last.get('rtx-granted')}, "
          f"within an RTT {last.get('rtx-too-soon')}, over the budget "
          f"{last.get('rtx-rate-limited')}), encoder updates "
          f"{last.get('encoder-updates')}; Chromium's frames decoded by us: "
          f"{last.get('frames-in')}")
    fin = page[-1].get("inbound-rtp", [{}])[0] if page else {}
    print(f"Chromium decoding ours: {fin.get('framesDecoded')} frames "
          f"decoded, {fin.get('framesDropped')} dropped, "
          f"{fin.get('freezeCount')} freezes, {fin.get('totalFreezesDuration')}"
          f" s frozen in all")
    if not a.markdown:
        for t, o in rt[::10]:
            p = min(pt, key=lambda x: abs(x[0] - t))[1] if pt else {}
            print(f"  t={t:6.1f}  target {o['target-bitrate'] / 1000:6.0f}  "
                  f"sent {o['send-rate'] / 1000:6.0f}  vp8enc "
                  f"{o['encoder'] / 1000:6.0f}  rtt {o['rtt'] / 1e6:6.1f} ms "
                  f"{o['state']:<22} Chromium decoded "
                  f"{one(p, 'inbound-rtp', 'framesDecoded')}  AOB "
                  f"{one(p, 'candidate-pair', 'availableOutgoingBitrate', None)}")

    fails = []
    if errors:
        fails.append(f"page errors: {errors}")
    if not ours or not page:
        fails.append(f"no data: {len(ours)} sender records, {len(page)} page "
                     "records")
        return finish(fails)
    # (1) Chromium keeps decoding our video: every stall (no frame
    # decoded) ends within 5 s — a loss NACK could not repair costs about
    # 3 s, libwebrtc's wait before it asks for a keyframe itself, and a
    # loaded machine loses packets now and then — or within 8 s if it
    # starts within TRANSIENT of a capacity change (the 3x cut); stalls
    # take at most a third of the run; at least a third of the frames sent
    # at the nominal rate are decoded
    stalls, last_t, last_d = [], None, None
    for t, d in decoded:
        if d is None:
            continue
        if last_d is not None and d != last_d and t - last_t >= 1.0:
            stalls.append((last_t, t - last_t))
        if d != last_d:
            last_t, last_d = t, d
    if last_t is not None and end - last_t >= 1.0:
        stalls.append((last_t, end - last_t))
    changes = [b0 for b0, b1, k in bounds[1:]]
    for t, length in stalls:
        near = any(c <= t < c + TRANSIENT for c in changes)
        if length >= (8.0 if near else 5.0):
            fails.append(f"Chromium decoded nothing for {length:.1f} s from "
                         f"t={t:.1f} s")
    first = next((t for t, d in decoded if d), None)
    if first is not None and sum(n for t, n in stalls) > (end - first) / 3:
        fails.append(f"Chromium stalled {sum(n for t, n in stalls):.1f} s of "
                     f"{end - first:.0f} s")
    if first is None:
        fails.append("Chromium decoded none of our frames")
    elif last_d < (end - first) * FPS / 3:
        fails.append(f"Chromium decoded {last_d} frames in {end - first:.0f} s"
                     f" ({FPS} fps sent at most)")
    print("stalls (no frame decoded for 1 s or more): " +
          (", ".join(f"{t:.1f} s +{n:.1f}" for t, n in stalls) or "none"))
    # (2) our target followed the capacity
    hi = rows[0]["ours_target"]
    lo = rows[1]["ours_target"]
    if not lo < 0.8 * hi:
        fails.append(f"target after the drop {lo:.0f} kbit/s, not under 0.8 "
                     f"x {hi:.0f}")
    if not 0.25 * LOW <= lo <= 1.3 * LOW:
        fails.append(f"target after the drop {lo:.0f} kbit/s, capacity {LOW}")
    # (3) the feedback came through the session and matched
    if not last.get("twcc-events") or last.get("twcc-unmatched"):
        fails.append(f"TWCC events {last.get('twcc-events')}, unmatched "
                     f"{last.get('twcc-unmatched')}")
    # (4) the other direction: Chromium sends, our receiver decodes
    if (last.get("frames-in") or 0) < 60:
        fails.append(f"our receiver decoded {last.get('frames-in')} of "
                     "Chromium's frames")
    return finish(fails)


def finish(fails):
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
