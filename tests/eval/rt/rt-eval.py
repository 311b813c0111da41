#!/usr/bin/python3
"""Real-time RFC 8867 runner (docs/realtime-eval.md).

Runs real GStreamer senders and receivers (rt-flow.py) through either
  * loopback: one flow through linkemu (rt-flow.py relay), no root, or
  * netns: three network namespaces with a tbf bottleneck, the user-space
    delay line (rtpcc-delayline) and Linux TCP from iperf3 (root),
for our stack (rtpccsink/rtpccsrc, --controller) and optionally the
gst-plugins-rs rtpgccbwe peer (--stacks ours,gcc; tests/eval/rt/peer-build.sh
first), writes per-flow CSVs with the simulator's columns, RFC 8868 metrics,
video quality (PSNR/SSIM after frame alignment, freeze %, glass-to-glass
latency), PNG plots and out/eval/rt/results.md.

  tests/eval/rt/rt-eval.py                         # every case, ours+peer
  tests/eval/rt/rt-eval.py --cases 5.1 --stacks ours --mode loopback
  tests/eval/rt/rt-eval.py --matrix short-rtt,outage-5s   # matrix scenarios

Scenario matrix entries (tests/eval/matrix.ini, docs/matrix.md) come from
`rtpcc-matrix --describe ID --seed N`: the same definition the simulator
runs, with its trace, loss, topology and aims; they run in namespaces
named mx-* unless --netns-prefix says otherwise.
"""
import argparse
import datetime
import importlib.util
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TICK = 0.2
SIM_COLUMNS = ("time_s,capacity_kbps,target_kbps,send_kbps,recv_kbps,"
               "queue_delay_ms,loss_pct,rtt_ms,sender_delay_ms")

_spec = importlib.util.spec_from_file_location(
    "rt_quality", os.path.join(HERE, "rt_quality.py"))
rt_quality = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rt_quality)

# --------------------------------------------------------------------------
# RFC 8867 §5 cases (schedules as ns3-rmcat's rmcat-wired suite runs
# them, 1 Mbit/s = 10^6 bit/s). A local table: the simulator's
# `rtpcc-eval --describe CASE` JSON is used instead when it exists and
# parses (see load_case). Capacities in kbit/s, times in s.
# flow: start, stop, optional pause (a, b), dir "fwd"/"rev".
# tcp: kind "long" (start, stop) or "short" (count, on, size_kb, off_mean).
CASES = {
    "5.1": dict(title="Variable available capacity, single flow",
                duration=100, delay=50, queue=300,
                schedule=[(0, 1000), (40, 2500), (60, 600), (80, 1000)],
                flows=[dict(start=0, stop=100)]),
    "5.2": dict(title="Variable available capacity, multiple flows",
                duration=125, delay=50, queue=300,
                schedule=[(0, 4000), (25, 2000), (50, 3500), (75, 1000),
                          (100, 2000)],
                flows=[dict(start=0, stop=125), dict(start=0, stop=125)]),
    "5.3": dict(title="Congested feedback link, bidirectional",
                duration=100, delay=50, queue=300,
                schedule=[(0, 2000), (20, 1000), (40, 500), (60, 2000)],
                reverse_schedule=[(0, 2000), (35, 800), (70, 2000)],
                flows=[dict(start=0, stop=100),
                       dict(start=0, stop=100, dir="rev")]),
    "5.4": dict(title="Competing flows with the same congestion control",
                duration=120, delay=50, queue=300, schedule=[(0, 3500)],
                flows=[dict(start=0, stop=119), dict(start=20, stop=119),
                       dict(start=40, stop=119)]),
    "5.6": dict(title="Competing with a long TCP flow",
                duration=120, delay=50, queue=300, schedule=[(0, 2000)],
                flows=[dict(start=5, stop=120)],
                tcp=[dict(kind="long", start=0, stop=120)]),
    "5.7": dict(title="Competing with short TCP flows",
                duration=300, delay=50, queue=300, schedule=[(0, 2000)],
                flows=[dict(start=5, stop=300), dict(start=5, stop=300)],
                tcp=[dict(kind="short", count=10, on=2, size_kb=(30, 50),
                          off_mean=10.0)]),
    "5.8": dict(title="Media pause and resume",
                duration=120, delay=50, queue=300, schedule=[(0, 3500)],
                flows=[dict(start=0, stop=120, pause=(40, 60)),
                       dict(start=0, stop=120), dict(start=0, stop=120)]),
}
NEEDS_NETNS = ("5.2", "5.3", "5.4", "5.5", "5.6", "5.7", "5.8")
MATRIX_PREFIX = "mx-"
DEFAULT_PREFIX = "rtpccev-"


def from_describe(d):
    """rtpcc-eval --describe JSON -> the runner's case dict."""
    case = {"title": d.get("title", ""), "duration": float(d["duration_s"]),
            "delay": int(d.get("delay_ms", 50)),
            "queue": int(d.get("queue_ms", 300)),
            "schedule": [(float(t), float(k))
                         for t, k in d.get("schedule") or []],
            "media": d.get("media", {}), "flows": [], "tcp": [],
            "definition": d}
    rq = d.get("reverse_queue_ms") or 0
    if d.get("reverse_schedule"):
        case["reverse_schedule"] = [(float(t), float(k))
                                    for t, k in d["reverse_schedule"]]
        case["reverse_queue"] = int(rq) if rq else case["queue"]
    for f in d["flows"]:
        fl = {"id": int(f["id"]), "start": float(f["start"]),
              "stop": float(f["stop"]), "dir": f.get("dir", "fwd")}
        if f.get("pause"):
            fl["pause"] = [float(x) for x in f["pause"]]
        fl["delay"] = int(f.get("delay_ms", case["delay"]))
        if fl["delay"] != case["delay"]:
            fl["other_delay"] = True
        case["flows"].append(fl)
    for t in d.get("tcp") or []:
        tt = dict(t)
        tt["id"] = int(t["id"])
        tt.setdefault("start", 0.0)
        tt.setdefault("stop", case["duration"])
        tt.setdefault("dir", "fwd")
        case["tcp"].append(tt)
    # scenario matrix extras (rtpcc-matrix --describe)
    for k in ("loss", "reverse_loss", "topology", "codec", "trace_file",
              "aims", "delay_based", "seed", "set"):
        if d.get(k) is not None:
            case[k] = d[k]
    if d.get("trace_file"):
        case["schedule"] = trace_schedule(d["trace_file"], case["duration"])
    return case


def trace_schedule(path, duration, step=TICK):
    """A mahimahi trace as a capacity schedule of `step` s steps (the mean
    rate of each step's 1500-byte opportunities), for tbf and for the CSV
    capacity column: (time_s, kbps) pairs."""
    n = int(round(duration / step))
    step_ms = int(round(step * 1000))
    count = [0] * n
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            k = int(line) // step_ms
            if 0 <= k < n:
                count[k] += 1
    return [(round(k * step, 3), c * 1500 * 8 / step / 1000.0)
            for k, c in enumerate(count)]


def loss_spec(loss):
    """describe JSON loss -> sim_loss_parse form ("none" for null)."""
    if not loss:
        return "none"
    if loss["model"] == "bernoulli":
        return f"bernoulli:{loss['p']}"
    return f"gilbert:{loss['p']},{loss['r']},{loss['k']},{loss['h']}"


def linkemu_loss(loss):
    """describe JSON loss -> linkemu properties."""
    if not loss:
        return ""
    if loss["model"] == "bernoulli":
        return f" loss={loss['p']}"
    return (f" loss-model=gilbert-elliott ge-p={loss['p']} ge-r={loss['r']}"
            f" ge-k={loss['k']} ge-h={loss['h']}")


def parse_loss(spec):
    """--loss: "none", "bernoulli:P" or "gilbert:p,r[,k,h]" (the matrix's
    form, k and h as netem's gemodel, default 1 and 0) -> describe JSON."""
    if spec == "none":
        return None
    model, _, vals = spec.partition(":")
    v = [float(x) for x in vals.split(",")] if vals else []
    if model == "bernoulli" and len(v) == 1:
        return {"model": "bernoulli", "p": v[0]}
    if model == "gilbert" and 2 <= len(v) <= 4:
        v += [1.0, 0.0][len(v) - 2:]
        return {"model": "gilbert", "p": v[0], "r": v[1], "k": v[2],
                "h": v[3]}
    sys.exit(f"--loss {spec}: want none, bernoulli:P or gilbert:p,r[,k,h]")


def load_matrix_case(name, build, seed, trace_dir):
    """A scenario of the matrix, from `rtpcc-matrix --describe` (its trace,
    if any, written under trace_dir)."""
    tool = os.path.join(build, "tests", "eval", "rtpcc-matrix")
    if not os.access(tool, os.X_OK):
        sys.exit(f"{tool} not built: the matrix needs it")
    out = subprocess.run([tool, "--describe", name, "--seed", str(seed),
                          "--trace-dir", trace_dir], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    case = from_describe(json.loads(out))
    case["source"] = f"rtpcc-matrix --describe {name} --seed {seed}"
    case["matrix"] = True
    return case


def needs_netns(case):
    """Loopback (linkemu) carries one forward flow without TCP over a
    router-less path; everything else needs the namespaces."""
    return (len(case["flows"]) > 1 or bool(case.get("tcp"))
            or any(f.get("dir") == "rev" for f in case["flows"])
            or "reverse_schedule" in case
            or case.get("topology") == "sender-qdisc")


def load_case(name, build):
    """The simulator's definition (`rtpcc-eval --describe`) when its tool is
    built, so both halves run the same case; else the local table."""
    tool = os.path.join(build, "tests", "eval", "rtpcc-eval")
    if os.access(tool, os.X_OK):
        try:
            out = subprocess.run([tool, "--describe", name], check=True,
                                 capture_output=True, text=True,
                                 timeout=20).stdout
            case = from_describe(json.loads(out))
            case["source"] = f"rtpcc-eval --describe {name}"
            return case
        except (OSError, subprocess.SubprocessError, ValueError, KeyError,
                TypeError, IndexError) as e:
            sys.stderr.write(f"rtpcc-eval --describe {name}: {e}; "
                             "using the local table\n")
    case = json.loads(json.dumps(CASES[name]))
    for i, fl in enumerate(case["flows"]):
        fl["id"] = i
    for j, t in enumerate(case.get("tcp", [])):
        t["id"] = len(case["flows"]) + j
    case["source"] = "local table (tests/eval/rt/rt-eval.py)"
    return case


def scaled(case, f):
    """Every time of a case multiplied by f (development runs only)."""
    if f == 1:
        return case
    c = json.loads(json.dumps(case))
    c["duration"] = case["duration"] * f
    c["schedule"] = [(t * f, k) for t, k in case["schedule"]]
    if "reverse_schedule" in case:
        c["reverse_schedule"] = [(t * f, k)
                                 for t, k in case["reverse_schedule"]]
    for fl in c["flows"]:
        fl["start"] *= f
        fl["stop"] *= f
        if fl.get("pause"):
            fl["pause"] = [x * f for x in fl["pause"]]
    for t in c.get("tcp", []):
        t["start"] = t.get("start", 0) * f
        t["stop"] = t.get("stop", case["duration"]) * f
    c.pop("definition", None)
    return c


def cap_at(schedule, t):
    k = schedule[0][1]
    for s, v in schedule:
        if t >= s:
            k = v
    return k


# --------------------------------------------------------------------------
class Run:
    """Processes of one case run; everything is ended in stop()."""

    def __init__(self, args, case, name, stack, outdir):
        self.a, self.case, self.name, self.stack = args, case, name, stack
        self.out = outdir
        self.procs = []
        self.netns = False
        self.threads = []
        self.stop_ev = threading.Event()
        self.P = args.netns_prefix or (MATRIX_PREFIX if case.get("matrix")
                                       else DEFAULT_PREFIX)
        # sender-qdisc: the bottleneck is the sender's own s0
        self.qdisc = case.get("topology") == "sender-qdisc"
        os.makedirs(outdir, exist_ok=True)

    def spawn(self, argv, log, ns=None):
        if ns:
            argv = ["ip", "netns", "exec", ns] + argv
        f = open(os.path.join(self.out, log), "w")
        p = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                             env=self.env)
        self.procs.append((p, f))
        return p

    def netns_sh(self, *argv):
        subprocess.run([os.path.join(HERE, "netns.sh")] + [str(x)
                       for x in argv], check=True, env=self.env)

    def set_rate(self, kbps, queue, dev="m1"):
        """The bottleneck (or the reverse one, dev m0) at kbps (0: an
        outage)."""
        if self.qdisc:
            self.netns_sh("rate", int(round(kbps)), queue, "s0", self.P, "s")
        else:
            self.netns_sh("rate", int(round(kbps)), queue, dev, self.P)

    def start(self, mode):
        a, case = self.a, self.case
        env = dict(os.environ)
        plugin_path = [os.path.join(a.build, "plugins")]
        if self.stack == "gcc":
            plugin_path.append(a.peer_lib)
        # the _1_0 variants win over the plain ones (meson's test_env
        # sets them), so set both
        env["GST_PLUGIN_PATH"] = env["GST_PLUGIN_PATH_1_0"] = \
            ":".join(plugin_path)
        # one registry per stack, built before the clock starts: a scan in
        # every process at start-up would delay the first (key) frames
        env["GST_REGISTRY"] = env["GST_REGISTRY_1_0"] = \
            os.path.join(a.out, f"registry-{self.stack}.bin")
        env["RTPCC_DELAYLINE"] = os.path.join(a.build, "tests", "eval",
                                              "rt", "rtpcc-delayline")
        self.env = env
        subprocess.run(["gst-inspect-1.0", "rtpgccbwe" if self.stack == "gcc"
                        else "rtpccsink"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        py = "/usr/bin/python3"
        flow_py = os.path.join(HERE, "rt-flow.py")
        dur = case["duration"]
        # receivers must be listening before the first (key) frame leaves:
        # they start first, and senders wait for their ready files
        lead = 4.0 + 1.0 * len(case["flows"])
        if mode == "netns":
            # flows with their own propagation delay (5.5): the delay line
            # adds the difference to their port range (port base + 20 i
            # .. + 19, media and feedback), TCP keeps the case's delay
            pb = a.port_base
            extra = [f"{pb + 20 * i}-{pb + 20 * i + 19}:"
                     f"{fl['delay'] - case['delay']}"
                     for i, fl in enumerate(case["flows"])
                     if fl.get("delay", case["delay"]) > case["delay"]]
            if any(fl.get("delay", case["delay"]) < case["delay"]
                   for fl in case["flows"]):
                sys.exit("a flow's delay is below the case's: unsupported")
            dl = [f"--port-delay {x}" for x in extra]
            if case.get("loss") or case.get("reverse_loss"):
                # random loss on the wire, seeded (the library's models)
                dl += [f"--loss {loss_spec(case.get('loss'))}",
                       f"--loss-ba {loss_spec(case.get('reverse_loss'))}",
                       f"--seed {case.get('seed', 1)}"]
            self.env["RTPCC_DELAYLINE_ARGS"] = " ".join(dl)
            if self.qdisc:
                if case.get("loss") or case.get("reverse_loss"):
                    sys.exit("loss needs the delay line: not with "
                             "topology sender-qdisc")
                self.netns_sh("up2", self.P)
            else:
                self.netns_sh("up", case["delay"], self.P)
            self.netns = True
            self.set_rate(case["schedule"][0][1], case["queue"])
            if "reverse_schedule" in case:
                self.set_rate(case["reverse_schedule"][0][1],
                              case.get("reverse_queue", case["queue"]), "m0")
        self.t0 = time.time() + lead
        t0 = f"{self.t0:.3f}"
        geo = ["--width", str(a.width), "--height", str(a.height),
               "--fps", str(a.fps)]
        senders = []
        for i, fl in enumerate(case["flows"]):
            base = a.port_base + 20 * i
            tag = f"flow{i}"
            rev = fl.get("dir") == "rev"
            if mode == "netns":
                s_ns, r_ns = (self.P + "r", self.P + "s") if rev else \
                    (self.P + "s", self.P + "r")
                r_host = "10.77.1.1" if rev else "10.77.2.1"
                s_host = "10.77.2.1" if rev else "10.77.1.1"
                dst = base
            else:
                s_ns = r_ns = None
                r_host = s_host = "127.0.0.1"
                dst = base + 10        # the relay's listen port
                # a trace as itself, unless scaled (then its steps)
                cap = (f"trace={case['trace_file']}"
                       if case.get("trace_file") and a.scale == 1
                       else "schedule=" + ",".join(
                           f"{k:g}@{t:g}" for t, k in case["schedule"]))
                fwd = " ".join(
                    [cap, f"queue-ms={case['queue']}",
                     f"delay={case['delay']}",
                     f"seed={case.get('seed', 1)}"]) + \
                    linkemu_loss(case.get("loss"))
                rev_props = f"delay={case['delay']}" + \
                    linkemu_loss(case.get("reverse_loss"))
                self.spawn([py, flow_py, "relay", "--t0", t0, "--stop",
                            str(dur), "--csv",
                            os.path.join(self.out, f"{tag}-link.csv"),
                            "--listen", str(dst), "--to-port", str(base),
                            "--sender-port", str(base + 4), "--forward", fwd,
                            "--reverse", rev_props],
                           f"{tag}-relay.log")
            self.spawn([py, flow_py, "recv", "--t0", t0, "--stop", str(dur),
                        "--stack", self.stack, "--csv",
                        os.path.join(self.out, f"{tag}-rcv.csv"),
                        "--port", str(base), "--peer-host", s_host,
                        "--peer-port", str(base + 4), "--frames",
                        os.path.join(self.out, f"{tag}-rcv-frames.csv"),
                        "--raw", os.path.join(self.out, f"{tag}-rcv.yuv"),
                        "--jitter-ms", str(a.jitter_ms),
                        "--repair", a.repair,
                        "--rtp-log", os.path.join(self.out,
                                                  f"{tag}-rtp.log")] + geo
                       # rrtcc's other half: the receiver's REMB;
                       # cnadu's: its NADU and estimate
                       + (["--remb"] if self.stack == "ours"
                          and a.controller == "rrtcc" else [])
                       + (["--nadu"] if self.stack == "ours"
                          and a.controller == "cnadu" else []),
                       f"{tag}-recv.log", r_ns)
            snd = [py, flow_py, "send", "--t0", t0, "--stop",
                   str(fl["stop"]), "--start", str(fl["start"]),
                   "--stack", self.stack, "--controller", a.controller,
                   "--csv", os.path.join(self.out, f"{tag}-snd.csv"),
                   "--host", r_host, "--port", str(dst), "--bind-port",
                   str(base + 4), "--frames",
                   os.path.join(self.out, f"{tag}-snd-frames.csv"),
                   "--min-kbps", str(self.rate("min_kbps", 150)),
                   "--max-kbps", str(self.rate("max_kbps", 1500)),
                   "--start-kbps", str(self.rate("start_kbps", 150))] + geo
            if fl.get("pause"):
                snd += ["--pause", f"{fl['pause'][0]}-{fl['pause'][1]}"]
            snd += ["--repair", a.repair]
            if a.encoder_buffer is not None:
                snd += ["--encoder-buffer", str(a.encoder_buffer)]
            if a.controller_params and self.stack == "ours":
                snd += ["--controller-params", a.controller_params]
            kfi = (case.get("codec") or {}).get("keyframe_interval", 0)
            if a.key_int_max:
                snd += ["--key-int-s", f"{a.key_int_max / a.fps:g}"]
            elif kfi:
                # the simulator's codec runs at 25 fps: the same period
                snd += ["--key-int-s", f"{kfi / 25.0:g}"]
            senders.append((snd, f"{tag}-send.log", s_ns))
        ready = [os.path.join(self.out, f"flow{i}-rcv.csv.ready")
                 for i in range(len(case["flows"]))]
        while not all(os.path.exists(r) for r in ready):
            if time.time() > self.t0 - 0.5:
                sys.stderr.write("[rt-eval] warning: receivers not ready "
                                 "at t0 - 0.5 s; starting senders anyway\n")
                break
            time.sleep(0.05)
        for snd, log, ns in senders:
            self.spawn(snd, log, ns)
        if mode == "netns":
            self.start_tcp()
            self.threads.append(threading.Thread(
                target=self.schedule_thread, daemon=True))
            self.threads.append(threading.Thread(
                target=self.link_thread, daemon=True))
            for t in self.threads:
                t.start()

    def rate(self, key, default):
        """Media rate limits: the option, else the case's, else default."""
        v = getattr(self.a, key.replace("_kbps", "") + "_kbps", None)
        if v is None:
            v = self.case.get("media", {}).get(key, default)
        return int(v)

    def tcp_cc(self, t):
        cc = self.a.tcp_cc or t.get("cc", "cubic")
        return "reno" if cc == "newreno" else cc

    # --- netns helpers ---------------------------------------------------
    def schedule_thread(self):
        """Applies the capacity schedules to tbf at their times."""
        rq = self.case.get("reverse_queue", self.case["queue"])
        ev = [(t, k, "m1", self.case["queue"])
              for t, k in self.case["schedule"][1:]]
        ev += [(t, k, "m0", rq) for t, k in
               self.case.get("reverse_schedule", [])[1:]]
        last = {}
        for t, k, dev, q in sorted(ev):
            if last.get(dev) == int(round(k)):
                continue        # a trace's step at the same rate
            if self.stop_ev.wait(max(0.0, self.t0 + t - time.time())):
                return
            self.set_rate(k, q, dev)
            last[dev] = int(round(k))

    def link_thread(self):
        """Bottleneck queue delay (backlog / rate) and drops every 200 ms."""
        with open(os.path.join(self.out, "link.csv"), "w") as f:
            f.write("time_s,capacity_kbps,queue_delay_ms,link_drops,"
                    "link_packets\n")
            k = 1
            while not self.stop_ev.is_set():
                ts = self.t0 + k * TICK
                if ts > self.t0 + self.case["duration"]:
                    return
                if self.stop_ev.wait(max(0.0, ts - time.time())):
                    return
                try:
                    out = subprocess.run(
                        [os.path.join(HERE, "netns.sh"), "stats"] +
                        (["s0", self.P, "s"] if self.qdisc
                         else ["m1", self.P]),
                        capture_output=True, text=True, timeout=2,
                        env=self.env).stdout.split()
                    backlog, drops, pkts, rate = (int(x) for x in out[:4])
                except (subprocess.SubprocessError, ValueError):
                    k += 1
                    continue
                # an outage's 8 bit/s tbf delivers nothing: no queue delay
                # (NaN, as a simulator row without receptions), not the
                # backlog's hours at 1 byte/s
                qd = backlog / rate * 1000 if rate * 8 >= 1000 else \
                    (float("nan") if rate else 0.0)
                f.write(f"{k * TICK:.1f},{rate * 8 / 1000:.1f},{qd:.2f},"
                        f"{drops},{pkts}\n")
                f.flush()
                k += 1

    def start_tcp(self):
        for j, t in enumerate(self.case.get("tcp", [])):
            if t["kind"] == "long":
                port = 45000 + j
                # over the feedback path (dir rev): server at the senders
                srv = self.P + ("s" if t.get("dir") == "rev" else "r")
                self.spawn(["iperf3", "-s", "-1", "-p", str(port), "-J",
                            "-i", "0.2"], f"tcp{j}-server.json", srv)
                th = threading.Thread(target=self.long_tcp, args=(j, t, port),
                                      daemon=True)
            else:
                th = threading.Thread(target=self.short_tcp, args=(j, t),
                                      daemon=True)
            self.threads.append(th)

    def long_tcp(self, j, t, port):
        if self.stop_ev.wait(max(0.0, self.t0 + t["start"] - time.time())):
            return
        secs = max(1, int(t["stop"] - t["start"]))
        rev = t.get("dir") == "rev"
        self.spawn(["iperf3", "-c", "10.77.1.1" if rev else "10.77.2.1",
                    "-p", str(port), "-t", str(secs), "-C", self.tcp_cc(t),
                    "-i", "0"], f"tcp{j}-client.log",
                   self.P + ("r" if rev else "s"))

    def short_tcp(self, j, t):
        """RFC 8867 5.7: `count` flows, `on` of them start at once; each
        sends a 30-50 KB file, then waits an exponential OFF time."""
        rng = random.Random(8867 + j)
        log = open(os.path.join(self.out, f"tcp{j}-short.csv"), "w")
        log.write("flow,start_s,end_s,bytes\n")
        lock = threading.Lock()

        def one(i):
            port = 45100 + i
            srv = subprocess.Popen(["ip", "netns", "exec", self.P + "r",
                                    "iperf3", "-s", "-p", str(port)],
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            self.procs.append((srv, None))
            time.sleep(0.5)
            first = i < t["on"]
            while not self.stop_ev.is_set():
                off = 0.0 if first else rng.expovariate(1.0 / t["off_mean"])
                first = False
                if self.stop_ev.wait(off):
                    return
                now = time.time() - self.t0
                if now >= self.case["duration"] - 1:
                    return
                size = rng.randint(*t["size_kb"]) * 1000
                subprocess.run(["ip", "netns", "exec", self.P + "s", "iperf3",
                                "-c", "10.77.2.1", "-p", str(port), "-n",
                                str(size), "-C", self.tcp_cc(t)],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                with lock:
                    log.write(f"{i},{now:.2f},{time.time() - self.t0:.2f},"
                              f"{size}\n")
                    log.flush()
        ths = [threading.Thread(target=one, args=(i,), daemon=True)
               for i in range(t["count"])]
        if self.stop_ev.wait(max(0.0, self.t0 - time.time())):
            return
        for th in ths:
            th.start()
        for th in ths:
            th.join()

    def wait(self):
        end = self.t0 + self.case["duration"] + 20
        for p, _ in self.procs:
            if p.args[-1:] == ["0.2"] or "-s" in p.args:
                continue        # iperf3 servers: ended in stop()
            try:
                p.wait(timeout=max(1, end - time.time()))
            except subprocess.TimeoutExpired:
                pass

    def stop(self):
        self.stop_ev.set()
        for p, _ in self.procs:
            if p.poll() is None and "-J" in p.args:
                # one-off JSON servers print their report when the client
                # ends; give them a moment
                try:
                    p.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    pass
        for p, f in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
            if f:
                f.close()
        if self.netns:
            subprocess.run([os.path.join(HERE, "netns.sh"), "down", self.P],
                           env=self.env)
            self.netns = False


# --------------------------------------------------------------------------
def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        hdr = None
        rows = []
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cells = line.strip().split(",")
            if hdr is None:
                hdr = cells
                continue
            try:
                rows.append({h: float(c) for h, c in zip(hdr, cells)})
            except ValueError:
                continue
        return rows


def by_tick(rows):
    return {int(round(r["time_s"] / TICK)): r for r in rows}


def tcp_goodput(path):
    """iperf3 server JSON -> {tick: kbps}."""
    try:
        d = json.load(open(path))
    except (OSError, ValueError):
        return {}
    out = {}
    for iv in d.get("intervals", []):
        s = iv.get("sum", {})
        out[int(round(s.get("end", 0) / TICK))] = s.get("bits_per_second",
                                                        0) / 1000
    return out


def short_tcp_goodput(path, duration):
    """Short TCP transfers (start, end, bytes) -> {tick: kbps}, each
    transfer's bytes spread evenly over its duration."""
    out = {}
    for r in read_rows(path):
        a, b = r["start_s"], max(r["end_s"], r["start_s"] + TICK)
        n = r["bytes"]
        rate = n * 8 / 1000 / (b - a)
        k = int(a / TICK)
        while k * TICK < b and k * TICK <= duration:
            lo, hi = max(a, k * TICK), min(b, (k + 1) * TICK)
            if hi > lo:
                out[k + 1] = out.get(k + 1, 0.0) + rate * (hi - lo) / TICK
            k += 1
    return out


def merge(run, mode):
    """Per-flow CSVs in the simulator's columns, one row per 200 ms tick
    over the whole case (0 before a flow starts); returns {id: path}."""
    case, out = run.case, run.out
    paths = {}
    nticks = int(round(case["duration"] / TICK))
    shared_link = by_tick(read_rows(os.path.join(out, "link.csv")))
    for i, fl in enumerate(case["flows"]):
        snd = by_tick(read_rows(os.path.join(out, f"flow{i}-snd.csv")))
        rcv = by_tick(read_rows(os.path.join(out, f"flow{i}-rcv.csv")))
        link = shared_link if mode == "netns" else \
            by_tick(read_rows(os.path.join(out, f"flow{i}-link.csv")))
        rev = fl.get("dir") == "rev"
        sched = case["reverse_schedule"] if rev else case["schedule"]
        path = os.path.join(out, f"flow{i}.csv")
        with open(path, "w") as f:
            f.write(SIM_COLUMNS + "\n")
            for k in range(1, nticks + 1):
                t = k * TICK
                s, r = snd.get(k, {}), rcv.get(k, {})
                ln = {} if rev else link.get(k, {})
                f.write(f"{t:.1f},{cap_at(sched, t - 1e-9):.1f},"
                        f"{s.get('target_kbps', float('nan')):.1f},"
                        f"{s.get('send_kbps', 0.0):.1f},"
                        f"{r.get('recv_kbps', 0.0):.1f},"
                        f"{ln.get('queue_delay_ms', float('nan')):.2f},"
                        f"{r.get('loss_pct', 0.0):.2f},"
                        f"{s.get('rtt_ms', float('nan')):.2f},0.00\n")
        paths[fl["id"]] = path
    for j, t in enumerate(case.get("tcp", [])):
        if t["kind"] == "long":
            gp = tcp_goodput(os.path.join(out, f"tcp{j}-server.json"))
            # iperf3 intervals count from the client's connect
            off = int(round(t["start"] / TICK))
            gp = {k + off: v for k, v in gp.items()}
        else:
            gp = short_tcp_goodput(os.path.join(out, f"tcp{j}-short.csv"),
                                   case["duration"])
        path = os.path.join(out, f"tcp{j}.csv")
        rev = t.get("dir") == "rev"
        sched = case["reverse_schedule"] if rev else case["schedule"]
        with open(path, "w") as f:
            f.write(SIM_COLUMNS + "\n")
            for k in range(1, nticks + 1):
                tt = k * TICK
                qd = float("nan") if rev else \
                    shared_link.get(k, {}).get("queue_delay_ms", float("nan"))
                f.write(f"{tt:.1f},{cap_at(sched, tt - 1e-9):.1f},"
                        f"nan,nan,{gp.get(k, 0.0):.1f},{qd:.2f},"
                        f"0.00,nan,0.00\n")
        paths[t["id"]] = path
    return paths


def to_definition(case):
    """The runner's (possibly scaled) case in rtpcc-eval --describe form,
    for rfc8868.score."""
    d = {"duration_s": case["duration"], "delay_ms": case["delay"],
         "queue_ms": case["queue"],
         "schedule": [list(x) for x in case["schedule"]],
         "reverse_schedule": [list(x) for x in
                              case.get("reverse_schedule", [])] or None,
         "media": case.get("media", {"max_kbps": 1500}),
         "flows": [], "tcp": []}
    for fl in case["flows"]:
        d["flows"].append({"id": fl["id"], "start": fl["start"],
                           "stop": fl["stop"], "dir": fl.get("dir", "fwd"),
                           "pause": fl.get("pause")})
    for t in case.get("tcp", []):
        d["tcp"].append({"id": t["id"], "kind": t["kind"],
                         "start": t.get("start", 0.0),
                         "stop": t.get("stop", case["duration"]),
                         "dir": t.get("dir", "fwd")})
    # what the matrix metrics and aims read
    for k in ("trace_file", "aims", "delay_based"):
        if k in case:
            d[k] = case[k]
    if case.get("trace_file"):
        # the trace's steps are no events (the simulator's trace cases have
        # no schedule): the rows carry the capacity
        d["schedule"] = None
    return d


# --------------------------------------------------------------------------
def load_rfc8868():
    p = os.path.join(SRC, "tests", "eval", "rfc8868.py")
    if not os.path.exists(p):
        return None
    try:
        spec = importlib.util.spec_from_file_location("rfc8868", p)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m
    except Exception as e:  # their module, our fallback: never fatal
        sys.stderr.write(f"rfc8868.py unusable ({e}); local metrics\n")
        return None


def pct(xs, p):
    xs = sorted(x for x in xs if not math.isnan(x))
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def mean(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else float("nan")


def jain(xs):
    xs = [x for x in xs if x > 0]
    return (sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
            if xs else float("nan"))


def load_matrix_metrics():
    p = os.path.join(SRC, "tests", "eval", "matrix_metrics.py")
    sys.path.insert(0, os.path.dirname(p))
    spec = importlib.util.spec_from_file_location("matrix_metrics", p)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def matrix_result(run, res, rows):
    """The matrix metrics and aims of a matrix scenario's run (the peer is
    judged as the delay-based controller it is)."""
    mm = load_matrix_metrics()
    d = to_definition(run.case)
    met = mm.metrics(d, rows, res)
    ctl = run.a.controller if run.stack == "ours" else "gcc"
    return {"metrics": met, "aims": [
        {"aim": a, "value": v, "met": ok} for a, v, ok in mm.aims(d, met,
                                                                  ctl)]}


def metrics(run, paths):
    """RFC 8868 metrics with tests/eval/rfc8868.py (the
    simulator's definitions), else the local fallback below."""
    m = load_rfc8868()
    if m is None:
        return local_metrics(run, list(paths.values()))
    rows = {fid: m.read_csv(p) for fid, p in paths.items()}
    res = m.score(to_definition(run.case), rows)
    out = dict(res["summary"])
    out["flows"] = res["flows"]
    out["windows"] = res["windows"]
    out["convergence"] = res["convergence"]
    out["jain"] = out.get("jain_mean", float("nan"))
    out["metrics_by"] = "tests/eval/rfc8868.py"
    if run.case.get("matrix"):
        out["matrix"] = matrix_result(run, res, rows)
    return out


def local_metrics(run, paths, warmup=5.0):
    """Fallback when rfc8868.py is missing: our own computation."""
    case = run.case
    flows = [read_rows(p) for p in paths]
    media = flows[:len(case["flows"])]
    tcp = flows[len(case["flows"]):]
    res = {"flows": []}
    for i, rows in enumerate(media):
        fl = case["flows"][i]
        act = [r for r in rows if r["time_s"] >= fl["start"] + warmup]
        recv = [r["recv_kbps"] for r in act]
        res["flows"].append({
            "recv_kbps_mean": mean(recv),
            "util": mean([r["recv_kbps"] / r["capacity_kbps"] for r in act
                          if r["capacity_kbps"] > 0]),
            "qdelay_mean_ms": mean([r["queue_delay_ms"] for r in act]),
            "qdelay_p50_ms": pct([r["queue_delay_ms"] for r in act], 0.5),
            "qdelay_p95_ms": pct([r["queue_delay_ms"] for r in act], 0.95),
            "qdelay_max_ms": pct([r["queue_delay_ms"] for r in act], 1.0),
            "loss_pct": mean([r["loss_pct"] for r in act]),
        })
    # aggregate over the common active window of the forward media flows
    fwd = [i for i, f in enumerate(case["flows"]) if f.get("dir") != "rev"]
    lo = max(case["flows"][i]["start"] for i in fwd) + warmup
    hi = min(case["flows"][i]["stop"] for i in fwd)
    ticks = {}
    for i in fwd:
        for r in media[i]:
            if lo <= r["time_s"] <= hi:
                ticks.setdefault(r["time_s"], []).append(r)
    util, q = [], []
    for t, rs in sorted(ticks.items()):
        cap = rs[0]["capacity_kbps"]
        if cap > 0:
            util.append(sum(r["recv_kbps"] for r in rs) / cap)
        q.append(rs[0]["queue_delay_ms"])
    res["util"] = mean(util)
    res["qdelay_p95_ms"] = pct(q, 0.95)
    res["qdelay_mean_ms"] = mean(q)
    res["loss_pct"] = mean([f["loss_pct"] for f in res["flows"]])
    means = [mean([r["recv_kbps"] for r in media[i]
                   if lo <= r["time_s"] <= hi]) for i in fwd]
    res["jain"] = jain(means) if len(fwd) > 1 else float("nan")
    if tcp and tcp[0]:
        tcp_mean = mean([r["recv_kbps"] for r in tcp[0]
                         if lo <= r["time_s"] <= hi])
        med = sum(means)
        res["tcp_kbps"] = tcp_mean
        res["media_share"] = med / (med + tcp_mean) if med + tcp_mean else \
            float("nan")
    res["media_util"] = res["util"]
    res["metrics_by"] = "rt-eval.py local fallback"
    return res


def plot(run, paths, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    case = run.case
    fig, ax = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    ts = [t for t, _ in case["schedule"]] + [case["duration"]]
    ks = [k for _, k in case["schedule"]]
    ax[0].step(ts, ks + [ks[-1]], where="post", color="k", label="capacity")
    for p in paths.values():
        rows = read_rows(p)
        lab = os.path.basename(p)[:-4]
        ax[0].plot([r["time_s"] for r in rows],
                   [r["recv_kbps"] for r in rows], label=f"{lab} recv")
        if not lab.startswith("tcp"):
            ax[0].plot([r["time_s"] for r in rows],
                       [r["target_kbps"] for r in rows], ":",
                       label=f"{lab} target")
            ax[2].plot([r["time_s"] for r in rows],
                       [r["loss_pct"] for r in rows], label=lab)
    rows = read_rows(list(paths.values())[0])
    ax[1].plot([r["time_s"] for r in rows],
               [r["queue_delay_ms"] for r in rows], color="tab:red")
    ax[0].set_ylabel("kbit/s")
    ax[1].set_ylabel("bottleneck queue (ms)")
    ax[2].set_ylabel("loss (%)")
    ax[2].set_xlabel("time (s)")
    ax[0].legend(fontsize=7, ncol=3)
    ax[0].set_title(f"RFC 8867 {run.name} (real time, {run.stack})")
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)
    return True


def quality(run, keep_raw):
    a = run.a
    out = []
    for i in range(len(run.case["flows"])):
        raw = os.path.join(run.out, f"flow{i}-rcv.yuv")
        try:
            q = rt_quality.analyse(
                os.path.join(run.out, f"flow{i}-snd-frames.csv"),
                os.path.join(run.out, f"flow{i}-rcv-frames.csv"), raw,
                a.width, a.height, a.fps,
                os.path.join(run.out, f"q{i}"))
        except (OSError, subprocess.SubprocessError, ValueError,
                StopIteration, RuntimeError) as e:
            q = {"error": str(e)}
        # per frame slot, to see where the quality goes (e.g. against
        # the losses or the key frames of the run)
        if "psnr_per_frame" in q:
            with open(os.path.join(run.out, f"flow{i}-quality.csv"),
                      "w") as f:
                f.write("slot,psnr_y,ssim\n")
                for k, (p, s) in enumerate(zip(q["psnr_per_frame"],
                                               q["ssim_per_frame"])):
                    f.write(f"{k},{p:.2f},{s:.5f}\n")
        q.pop("psnr_per_frame", None)
        q.pop("ssim_per_frame", None)
        out.append(q)
        if not keep_raw and os.path.exists(raw):
            os.remove(raw)
        shutil.rmtree(os.path.join(run.out, f"q{i}"), ignore_errors=True)
    return out


def post_repair_loss(outdir, n_flows):
    """RFC 8868 post-repair loss, %, mean over flows: packets expected but
    missing where the depayloader takes them, i.e. after the receiver's
    jitter buffer (its late discards count; no FEC/RTX in these runs). From
    the receivers' cumulative counters (last row of flowN-rcv.csv)."""
    vals = []
    for i in range(n_flows):
        rows = read_rows(os.path.join(outdir, f"flow{i}-rcv.csv"))
        if not rows or "post_expected" not in rows[-1]:
            continue
        pp, pe = rows[-1]["post_packets"], rows[-1]["post_expected"]
        if pe and pe > 0:
            vals.append(max(0.0, 100.0 * (pe - pp) / pe))
    return mean(vals) if vals else float("nan")


def get_case(args, name):
    if name in args.matrix_ids:
        return load_matrix_case(name, args.build, args.seed,
                                os.path.join(args.out, "traces"))
    return load_case(name, args.build)


def run_case(args, name, stack, mode):
    case = scaled(get_case(args, name), args.scale)
    if args.loss is not None:
        case["loss"] = parse_loss(args.loss)
    outdir = os.path.join(args.out, f"{name}-{stack}")
    shutil.rmtree(outdir, ignore_errors=True)
    run = Run(args, case, name, stack, outdir)
    print(f"[rt-eval] {name} {stack} ({mode}, {case['duration']:g} s)",
          flush=True)
    try:
        run.start(mode)
        run.wait()
    finally:
        run.stop()
    paths = merge(run, mode)
    m = metrics(run, paths)
    m["post_repair_loss_pct"] = post_repair_loss(outdir, len(case["flows"]))
    m["quality"] = quality(run, args.keep_raw)
    qs = [q for q in m["quality"] if "ssim_mean" in q]
    m["ssim"] = mean([q["ssim_mean"] for q in qs])
    m["psnr"] = mean([q["psnr_y_mean"] for q in qs])
    m["freeze_pct"] = mean([q.get("freeze_pct", float("nan"))
                            for q in m["quality"]])
    m["g2g_p95_ms"] = mean([q.get("g2g_p95_ms", float("nan"))
                            for q in m["quality"]])
    m["case"], m["stack"], m["mode"] = name, stack, mode
    m["argv"] = sys.argv[1:]
    m["scale"] = args.scale
    m["date"] = f"{datetime.datetime.utcnow():%Y-%m-%d %H:%M}"
    m["duration"], m["source"] = case["duration"], case["source"]
    if case.get("matrix"):
        m["seed"], m["set"] = case.get("seed"), case.get("set")
    m["plot"] = os.path.join(outdir, "plot.png") if plot(
        run, paths, os.path.join(outdir, "plot.png")) else None
    with open(os.path.join(outdir, "metrics.json"), "w") as f:
        json.dump(m, f, indent=1)
    return m


def swing(lo, hi):
    return "–" if lo == hi == "–" else f"{lo}–{hi}"


def g_v(v):
    if isinstance(v, float) and math.isinf(v):
        return "never"
    return fmt(v, 2)


def fmt(x, d=2):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:.{d}f}"


def write_results(args, results, path, argv=None):
    try:
        commit = subprocess.run(["git", "-C", SRC, "rev-parse", "--short",
                                 "HEAD"], capture_output=True,
                                text=True).stdout.strip()
    except OSError:  # no git (a tree from a tarball)
        commit = "unknown"
    # a fragment: docs/results.md (tests/eval/make-results) puts it under
    # its own "Real-time runs" heading
    lines = ["### RFC 8867 cases as real GStreamer pipelines", "",
             f"Machine: {os.uname().nodename}, {os.cpu_count()} cores; "
             f"date {results[0]['date'] if results and 'date' in results[0] else datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M')} UTC; "
             f"commit {commit}; controller `{args.controller}`; video "
             f"{args.width}x{args.height}@{args.fps} x264; time scale "
             f"{args.scale:g}.",
             "Reproduce: `" + " ".join(["tests/eval/rt/rt-eval.py"] +
                                       (argv or sys.argv[1:])) + "` (see "
             "docs/realtime-eval.md).", "",
             "Metrics: " + (results[0].get("metrics_by", "?") if results
                            else "?") + "; case definitions: " +
             ", ".join(sorted({m.get("source", "?").replace(
                 f" {m['case']}", "") for m in results})) + ".", "",
             "| case | stack | mode | s | util (media) | qdelay mean/p95 ms "
             "| loss % (worst flow) | post-repair loss % | Jain | conv. mean s "
             "| media share vs TCP | PSNR-Y dB | SSIM | freeze % | g2g p95 ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in results:
        lines.append(
            f"| {m['case']} | {m['stack']} | {m['mode']} | "
            f"{m['duration']:g} | {fmt(m.get('util'))} "
            f"({fmt(m.get('media_util'))}) | "
            f"{fmt(m['qdelay_mean_ms'], 0)}/{fmt(m['qdelay_p95_ms'], 0)} | "
            f"{fmt(m['loss_pct'])} | {fmt(m.get('post_repair_loss_pct'))} | "
            f"{fmt(m.get('jain'))} | {fmt(m.get('conv_mean_s'), 1)} | "
            f"{fmt(m.get('media_share'))} | {fmt(m['psnr'], 1)} | "
            f"{fmt(m['ssim'], 3)} | {fmt(m['freeze_pct'], 1)} | "
            f"{fmt(m['g2g_p95_ms'], 0)} |")
    pairs = {}
    for m in results:
        pairs.setdefault(m["case"], {})[m["stack"]] = m
    ratio_rows = []
    for c, d in pairs.items():
        if "ours" in d and "gcc" in d:
            o, p = d["ours"], d["gcc"]

            def r(k):
                try:
                    return o[k] / p[k]
                except (ZeroDivisionError, TypeError):
                    return float("nan")
            ratio_rows.append(
                f"| {c} | {fmt(r('media_util'))} | {fmt(r('qdelay_p95_ms'))} | "
                f"{fmt(o['loss_pct'])} / {fmt(p['loss_pct'])} | "
                f"{fmt(r('jain'))} | {fmt(r('ssim'), 3)} |")
    if ratio_rows:
        lines += ["", f"Ours (`{args.controller}`) / peer (gst-plugins-rs "
                  "rtpgccbwe 0.15.4, same pipeline, TWCC via rtpbin):", "",
                  "| case | media util ratio | p95 delay ratio | loss % ours / "
                  "peer | Jain ratio | SSIM ratio |", "|---|---|---|---|---|---|"]
        lines += ratio_rows
    mx = [m for m in results if m.get("matrix")]
    if mx:
        lines += ["", "Scenario matrix (docs/matrix.md): the matrix metrics "
                  "and the aims that apply (ours: the controller's class; the "
                  "peer: delay-based).", "",
                  "| scenario | stack | seed | util | p95 ms | recovery s | "
                  "after | swing p5–p95 | share | reach s | aims met | "
                  "missed |", "|---|---|---|---|---|---|---|---|---|---|---|"
                  "---|"]
        for m in mx:
            x = m["matrix"]["metrics"]
            aims = m["matrix"]["aims"]

            def g(k, d=2):
                v = x.get(k)
                return "never" if isinstance(v, float) and math.isinf(v) \
                    else fmt(v, d)
            missed = "; ".join(f"{a['aim']} ({g_v(a['value'])})"
                               for a in aims if not a["met"])
            lines.append(
                f"| {m['case']} | {m['stack']} | {m.get('seed', '–')} | "
                f"{g('media_util')} | {g('qdelay_p95_ms', 0)} | "
                f"{g('recovery_s', 1)} | {g('util_after')} | "
                f"{swing(g('swing_lo'), g('swing_hi'))} | {g('share')} | "
                f"{g('reach_s', 1)} | "
                f"{sum(a['met'] for a in aims)}/{len(aims)} | "
                f"{missed or '–'} |")
    lines.append("")
    for m in results:
        if m.get("plot"):
            if args.publish:
                # docs/realtime-eval/<case>-<stack>.png, linked relative to
                # docs/ so the fragment works inside docs/results.md
                dst = os.path.join(SRC, "docs", "realtime-eval",
                                   f"{m['case']}-{m['stack']}.png")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if os.path.exists(m["plot"]):
                    shutil.copyfile(m["plot"], dst)
                rel = os.path.relpath(dst, os.path.join(SRC, "docs"))
            else:
                rel = os.path.relpath(m["plot"], os.path.dirname(path))
            lines.append(f"![{m['case']} {m['stack']}]({rel})")
    lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # 5.5 (flows with their own delays) comes from rtpcc-eval --describe
    # only: the local fallback table does not carry per-flow delays
    p.add_argument("--cases", default=None,
                   help="comma-separated (default: every case)")
    p.add_argument("--matrix", default=None,
                   help="comma-separated scenario ids of tests/eval/"
                        "matrix.ini (instead of --cases)")
    p.add_argument("--seed", type=int, default=1,
                   help="matrix scenarios: the seed (tuning set: 1..N)")
    p.add_argument("--netns-prefix", default=None,
                   help="namespace name prefix (default rtpccev-, mx- for "
                        "matrix scenarios)")
    p.add_argument("--stacks", default="ours,gcc",
                   help="ours and/or gcc (the rtpgccbwe peer)")
    p.add_argument("--controller", default="gcc")
    p.add_argument("--controller-params", default=None,
                   help="ours: the controller's parameters, key=value;... "
                        "(rtpccsink controller-params)")
    p.add_argument("--mode", choices=("auto", "loopback", "netns"),
                   default="auto",
                   help="auto: netns when root, else loopback (single-flow "
                        "cases only)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every case time (development only)")
    p.add_argument("--build", default=os.path.join(SRC, "build"))
    p.add_argument("--out", default=os.path.join(SRC, "out", "eval", "rt"))
    p.add_argument("--peer-lib", default=os.path.join(SRC, "out", "peer",
                                                      "lib"))
    p.add_argument("--tcp-cc", default=None,
                   help="override the case's TCP (newreno -> Linux reno, "
                        "cubic)")
    p.add_argument("--min-kbps", type=int, default=None)
    p.add_argument("--start-kbps", type=int, default=None)
    p.add_argument("--max-kbps", type=int, default=None,
                   help="media R_max (default: the case's, else 1500)")
    p.add_argument("--width", type=int, default=480)
    p.add_argument("--height", type=int, default=270)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--keep-raw", action="store_true")
    p.add_argument("--loss", default=None,
                   help="forward loss instead of the case's: none, "
                        "bernoulli:P or gilbert:p,r[,k,h]")
    p.add_argument("--repair", choices=("none", "nack", "fec", "both"),
                   default="none",
                   help="ours: nack: NACK/RTX repair and PLI key-frame "
                        "requests; fec: fecenc/fecdec (FEC share up to 0.2 "
                        "of the target); both: the two together "
                        "(docs/repair.md)")
    p.add_argument("--encoder-buffer", type=int, default=None,
                   help="ours: rtpccsink encoder-buffer in ms (-1 follows "
                        "max-pacing-delay, 0 keeps x264enc's 300 ms of "
                        "these pipelines; default: the element's)")
    p.add_argument("--key-int-max", type=int, default=0,
                   help="x264enc key-int-max in frames (default: the "
                        "case's key-frame interval, else 4 s)")
    p.add_argument("--port-base", type=int, default=22000,
                   help="UDP ports from here (20 per flow): runs on one "
                        "host at the same time need different bases; "
                        "keep below the kernel's ephemeral range (32768 "
                        "up), or another program's port=0 socket can get "
                        "one of them and our stream")
    p.add_argument("--jitter-ms", type=int, default=100,
                   help="receiver jitter buffer latency (ms)")
    p.add_argument("--publish", action="store_true",
                   help="copy the plots to docs/realtime-eval/ and link "
                        "them relative to docs/")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite results.md from OUT/results.json")
    p.add_argument("--results", default=None,
                   help="markdown output (default OUT/results.md)")
    a = p.parse_args()
    a.build = os.path.abspath(a.build)
    a.out = os.path.abspath(a.out)
    a.matrix_ids = a.matrix.split(",") if a.matrix else []
    if a.matrix:
        a.cases = a.matrix
    root = os.geteuid() == 0
    stacks = a.stacks.split(",")
    if a.repair != "none" and "gcc" in stacks:
        sys.exit("--repair applies to our stack only: use --stacks ours")
    if "gcc" in stacks and not os.path.exists(
            os.path.join(a.peer_lib, "libgstrsrtp.so")):
        sys.stderr.write("peer not built (tests/eval/rt/peer-build.sh); "
                         "running ours only\n")
        stacks = [s for s in stacks if s != "gcc"]
    results = []
    os.makedirs(a.out, exist_ok=True)
    res_path = a.results or os.path.join(a.out, "results.md")
    if a.report_only:
        with open(os.path.join(a.out, "results.json")) as f:
            results = json.load(f)
        argv = (results[0].get("argv") if results else None) or \
            [x for x in sys.argv[1:] if x not in ("--report-only",
                                                   "--publish")]
        write_results(a, results, res_path, argv)
        print(f"[rt-eval] wrote {res_path}")
        return 0
    # a stray netns from an interrupted run must not leak into this one
    interrupted = {"v": False}

    def on_sig(_s, _f):
        interrupted["v"] = True
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_sig)
    if a.cases is None:
        names = sorted(list(CASES) + ["5.5"])
        if not os.access(os.path.join(a.build, "tests", "eval",
                                      "rtpcc-eval"), os.X_OK):
            names.remove("5.5")
        a.cases = ",".join(names)
    for name in a.cases.split(","):
        if name not in a.matrix_ids and name not in CASES and not os.access(
                os.path.join(a.build, "tests", "eval", "rtpcc-eval"),
                os.X_OK):
            sys.exit(f"unknown case {name} (have {', '.join(CASES)})")
        mode = a.mode
        if mode == "auto":
            mode = "netns" if root else "loopback"
        netns_only = needs_netns(get_case(a, name)) \
            if name in a.matrix_ids else name in NEEDS_NETNS
        if mode == "loopback" and netns_only:
            print(f"[rt-eval] {name}: needs the netns bottleneck (root); "
                  "skipped")
            continue
        if mode == "netns" and not root:
            sys.exit("--mode netns needs root")
        for stack in stacks:
            if stack == "gcc" and mode != "netns":
                print(f"[rt-eval] {name}: the peer runs in netns mode only")
                continue
            m = run_case(a, name, stack, mode)
            results.append(m)
            print(f"[rt-eval]   util {fmt(m['util'])} media "
                  f"{fmt(m.get('media_util'))} share "
                  f"{fmt(m.get('media_share'))} qdelay p95 "
                  f"{fmt(m['qdelay_p95_ms'], 0)} ms loss "
                  f"{fmt(m['loss_pct'])} % jain {fmt(m['jain'])} ssim "
                  f"{fmt(m['ssim'], 3)} psnr {fmt(m['psnr'], 1)} freeze "
                  f"{fmt(m['freeze_pct'], 1)} % g2g p95 "
                  f"{fmt(m['g2g_p95_ms'], 0)} ms", flush=True)
            # after every run: a long suite cut short still reports
            write_results(a, results, res_path)
            with open(os.path.join(a.out, "results.json"), "w") as f:
                json.dump(results, f, indent=1)
    write_results(a, results, res_path)
    print(f"[rt-eval] wrote {res_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
