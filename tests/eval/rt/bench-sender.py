#!/usr/bin/python3
"""Benchmark: CPU time per packet of the sender path (docs/realtime-eval.md).

Three processes on loopback:
  feeder    videotestsrc ! x264enc (fixed rate) ! rtph264pay ! udpsink :P
  measured  udpsrc :P ! rtpccsink (pacing, controller, feedback) -> :Q
  receiver  rtpccsrc :Q ! fakesink      (sends CCFB/RR back to rtpccsink)
The measured process's user+system CPU time (getrusage) over a steady
window, divided by the packets rtpccsink sent, minus the same for a
baseline process `udpsrc :P ! fakesink` fed the same stream: what is left is
rtpccsink's own cost per packet (parsing, controller, pacer, feedback
handling, the socket send). CPU time, not wall time, so other load on the
machine matters less, but it is not zero-noise: run it a few times.

  bench-sender.py [--build DIR] [--seconds 20] [--kbps 2000]
                  [--controller gcc] [--feedback ccfb|twcc] [--repeat 3]
"""
import argparse
import os
import resource
import subprocess
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CAPS = ("application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,"
        "payload=96")


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(desc, count, seconds, warmup, env):
    """Run desc in this process; CPU seconds and packets in the window."""
    pipe = Gst.parse_launch(desc)
    pipe.set_state(Gst.State.PLAYING)
    loop = GLib.MainLoop()
    marks = {}

    def at_warm():
        marks["c0"], marks["p0"] = cpu(), count(pipe)
        GLib.timeout_add(int(seconds * 1000), at_end)
        return False

    def at_end():
        marks["c1"], marks["p1"] = cpu(), count(pipe)
        loop.quit()
        return False
    GLib.timeout_add(int(warmup * 1000), at_warm)
    loop.run()
    pipe.set_state(Gst.State.NULL)
    return marks["c1"] - marks["c0"], marks["p1"] - marks["p0"]


def sink_packets(pipe):
    s = pipe.get_by_name("sink").get_property("stats")
    return s.get_value("packets-sent")


def fake_packets(pipe):
    s = pipe.get_by_name("sink").get_property("stats")
    return s.get_value("rendered")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(SRC, "build"))
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--warmup", type=float, default=3)
    p.add_argument("--kbps", type=int, default=2000)
    p.add_argument("--controller", default="gcc")
    p.add_argument("--feedback", default="ccfb", choices=["ccfb", "twcc"])
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    os.environ["GST_PLUGIN_PATH"] = os.path.join(os.path.abspath(a.build),
                                                 "plugins")
    Gst.init(None)
    pin, q = 43100, 43102
    env = dict(os.environ)
    feeder = subprocess.Popen(
        ["gst-launch-1.0", "-q", "videotestsrc", "is-live=true",
         "pattern=snow", "!",
         "video/x-raw,width=640,height=360,framerate=30/1", "!", "x264enc",
         "tune=zerolatency", "speed-preset=ultrafast", f"bitrate={a.kbps}",
         "threads=1", "!", "rtph264pay", "pt=96", "mtu=1200",
         "config-interval=-1", "!", "udpsink", "host=127.0.0.1",
         f"port={pin}", "sync=false"], env=env)
    receiver = subprocess.Popen(
        ["gst-launch-1.0", "-q", "rtpccsrc", f"port={q}",
         "address=127.0.0.1", f"feedback={a.feedback}", f"caps={CAPS}", "!",
         "fakesink", "sync=false"],
        env=env)
    rows = []
    try:
        time.sleep(1)
        for i in range(a.repeat):
            c, n = measure(
                f"udpsrc port={pin} buffer-size=4194304 caps=\"{CAPS}\" ! "
                f"rtpccsink name=sink host=127.0.0.1 port={q} "
                f"controller={a.controller} feedback={a.feedback} pacing=true "
                f"min-bitrate=150000 max-bitrate={a.kbps * 2000} "
                f"start-bitrate={a.kbps * 1500}", sink_packets, a.seconds,
                a.warmup, env)
            b, m = measure(
                f"udpsrc port={pin} buffer-size=4194304 caps=\"{CAPS}\" ! "
                f"fakesink name=sink sync=false", fake_packets, a.seconds,
                a.warmup, env)
            us = c / n * 1e6 if n else float("nan")
            ub = b / m * 1e6 if m else float("nan")
            rows.append((us, ub, n, m))
            print(f"run {i + 1}: rtpccsink path {us:.1f} us/packet "
                  f"({n} packets, {c:.3f} s CPU); baseline udpsrc!fakesink "
                  f"{ub:.1f} us/packet ({m} packets); rtpccsink alone "
                  f"{us - ub:.1f} us/packet", flush=True)
    finally:
        for proc in (feeder, receiver):
            proc.terminate()
            proc.wait()
    own = sorted(r[0] - r[1] for r in rows)
    print(f"median rtpccsink cost: {own[len(own) // 2]:.1f} us CPU per packet "
          f"({a.controller}, pacing on, {a.feedback} feedback, {a.kbps} kbit/s "
          f"stream, {a.repeat} runs of {a.seconds:g} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
