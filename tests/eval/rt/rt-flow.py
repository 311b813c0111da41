#!/usr/bin/python3
"""One endpoint of a real-time evaluation flow (docs/realtime-eval.md).

  rt-flow.py send  ...   video sender: numbered frames -> x264enc -> RTP
  rt-flow.py recv  ...   receiver: RTP -> decoder -> frame log + raw frames
  rt-flow.py relay ...   loopback path: udpsrc ! linkemu ! udpsink both ways
  rt-flow.py mprtp-send / mprtp-recv ...   the same call split by mprtpsched
                         over one rtpccsink per path, merged by playoutbuffer
                         (docs/multipath.md, "Real time"; mprtp-eval.py)

Two stacks: --stack ours (rtpccsink/rtpccsrc, the controller drives x264enc
through encoder-control) and --stack gcc (stock rtpbin with TWCC, avpf, and
gst-plugins-rs rtpgccbwe whose estimate this script feeds to x264enc: the
congestion control a stock GStreamer WebRTC peer would run).

Every frame carries its number as a 32-block luma barcode in its top rows
(16-bit number and its complement), so the receiver knows which source frame
each decoded picture is, whatever was lost; the sender logs each frame's
capture time and the receiver its display time (glass-to-glass latency).
The source is deterministic (videotestsrc frame n is always the same
picture), so rt-quality.py regenerates the reference exactly.

All processes of a run share --t0 (UNIX time of case time 0) and log every
200 ms on that grid; rt-eval.py merges the logs into per-flow CSVs.
Run with the system python3 (GStreamer introspection).
"""
import argparse
import os
import struct
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

import numpy as np  # noqa: E402

TWCC_URI = ("http://www.ietf.org/id/"
            "draft-holmer-rmcat-transport-wide-cc-extensions-01")
TICK = 0.2
# RFC 4588 retransmissions (SDP a=fmtp:97 apt=96) with --repair nack/both
RTX_PT = 97
# fecenc's parity (its default PT) with --repair fec/both
FEC_PT = 122
# the most of the target rtpccsink gives FEC while the channel loses
FEC_SHARE = 0.2
REPAIRS = ("none", "nack", "fec", "both")


def nacks(repair):
    return repair in ("nack", "both")


def fec(repair):
    return repair in ("fec", "both")
BAR_BITS = 32
BAR_ROWS = 16


def h264_caps(extra=""):
    return ("application/x-rtp,media=(string)video,clock-rate=(int)90000,"
            "encoding-name=(string)H264,payload=(int)96" + extra)


def source_desc(w, h, fps):
    # smpte with horizontal motion keeps x264 near its target (a static
    # pattern would stay far below it and hide congestion)
    return ("videotestsrc pattern=smpte horizontal-speed=4 ! "
            f"video/x-raw,format=I420,width={w},height={h},"
            f"framerate={fps}/1 ! appsink name=gen sync=false max-buffers=4")


def stamp(frame, n, w):
    """Write frame number n as a barcode into the luma of an I420 frame."""
    y = frame[:w * BAR_ROWS].reshape(BAR_ROWS, w)
    bw = w // BAR_BITS
    word = (n & 0xFFFF) | ((~n & 0xFFFF) << 16)
    for b in range(BAR_BITS):
        y[:, b * bw:(b + 1) * bw] = 235 if (word >> b) & 1 else 16


def read_stamp(frame, w):
    """Frame number from the barcode, or -1 when it does not check out."""
    y = frame[:w * BAR_ROWS].reshape(BAR_ROWS, w)
    bw = w // BAR_BITS
    m = max(1, bw // 4)
    word = 0
    for b in range(BAR_BITS):
        blk = y[3:BAR_ROWS - 3, b * bw + m:(b + 1) * bw - m]
        if blk.mean() > 126:
            word |= 1 << b
    lo, hi = word & 0xFFFF, word >> 16
    return lo if lo ^ hi == 0xFFFF else -1


class FrameSource:
    """Frame n of the deterministic test source, barcode included."""

    def __init__(self, w, h, fps):
        Gst.init(None)
        self.w, self.h = w, h
        self.pipe = Gst.parse_launch(source_desc(w, h, fps))
        self.sink = self.pipe.get_by_name("gen")
        self.pipe.set_state(Gst.State.PLAYING)
        self.n = 0

    def next(self):
        sample = self.sink.emit("pull-sample")
        if sample is None:
            raise RuntimeError("test source ended")
        buf = sample.get_buffer()
        frame = np.frombuffer(buf.extract_dup(0, buf.get_size()),
                              dtype=np.uint8).copy()
        stamp(frame, self.n, self.w)
        self.n += 1
        return frame

    def close(self):
        self.pipe.set_state(Gst.State.NULL)


class Ticker(threading.Thread):
    """Calls fn(time_s) on the 200 ms grid of the case clock until end."""

    def __init__(self, t0, end, fn):
        super().__init__(daemon=True)
        self.t0, self.end, self.fn = t0, end, fn

    def run(self):
        k = max(1, int((time.time() - self.t0) / TICK) + 1)
        while True:
            t = self.t0 + k * TICK
            if t > self.t0 + self.end + 1e-6:
                return
            d = t - time.time()
            if d > 0:
                time.sleep(d)
            self.fn(k * TICK)
            k += 1


def buffers(info):
    if info.type & Gst.PadProbeType.BUFFER_LIST:
        lst = info.get_buffer_list()
        return [lst.get(i) for i in range(lst.length())]
    b = info.get_buffer()
    return [b] if b is not None else []


def add_probe(elem, pad_name, fn):
    pad = elem.get_static_pad(pad_name)
    pad.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST, fn)


def watch_bus(pipe, loop, state):
    bus = pipe.get_bus()
    bus.add_signal_watch()

    def on_msg(_bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            sys.stderr.write(f"ERROR {msg.src.get_name()}: {err.message}\n"
                             f"{dbg}\n")
            state["failed"] = True
            loop.quit()
        elif msg.type == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            sys.stderr.write(f"WARNING {msg.src.get_name()}: {err.message}\n")
    bus.connect("message", on_msg)


def run_until(loop, t0, end):
    def check():
        if time.time() >= t0 + end:
            loop.quit()
            return False
        return True
    GLib.timeout_add(100, check)
    loop.run()


def feed_frames(appsrc, source, flog, fps, t0, start, end, stop, pauses=()):
    """Pushes frame n due at t0 + start + n/fps until case time end (or
    stop is set), logging its capture time; frames due while paused are
    skipped (not sent), so the analysis does not count them."""
    n = 0
    while not stop.is_set():
        due = t0 + start + n / fps
        if due >= t0 + end:
            break
        d = due - time.time()
        if d > 0:
            time.sleep(d)
        frame = source.next()
        t = due - t0
        if not any(p0 <= t < p1 for p0, p1 in pauses):
            buf = Gst.Buffer.new_wrapped(frame.tobytes())
            buf.duration = Gst.SECOND // fps
            flog.write(f"{n},{time.time():.6f}\n")
            appsrc.emit("push-buffer", buf)
        n += 1
    appsrc.emit("end-of-stream")


class DecodedFrames:
    """Logs each decoded picture of appsink @out (display index, frame
    number from its barcode, display time) and keeps the raw frames for the
    quality analysis."""

    def __init__(self, out, w, h, frames_path, raw_path):
        self.w, self.fsize = w, w * h * 3 // 2
        self.raw = open(raw_path, "wb") if raw_path else None
        self.flog = open(frames_path, "w")
        self.flog.write("index,frame,t_display\n")
        self.i = 0
        out.connect("new-sample", self.on_sample)

    def on_sample(self, sink):
        sample = sink.emit("pull-sample")
        buf = sample.get_buffer()
        data = buf.extract_dup(0, buf.get_size())
        now = time.time()
        if len(data) < self.fsize:
            return Gst.FlowReturn.OK
        n = read_stamp(np.frombuffer(data, dtype=np.uint8,
                                     count=self.w * BAR_ROWS), self.w)
        self.flog.write(f"{self.i},{n},{now:.6f}\n")
        if self.raw:
            self.raw.write(data[:self.fsize])
        self.i += 1
        return Gst.FlowReturn.OK

    def close(self):
        self.flog.close()
        if self.raw:
            self.raw.close()


def media_desc(w, h, fps, kbps, key_int_s):
    """appsrc (numbered frames) -> x264enc name=enc -> rtph264pay name=pay,
    the sender's media chain of every stack."""
    return (f"appsrc name=src is-live=true format=time do-timestamp=true "
            f"caps=video/x-raw,format=I420,width={w},height={h},"
            f"framerate={fps}/1 ! queue max-size-buffers=4 leaky=downstream ! "
            f"x264enc name=enc tune=zerolatency speed-preset=ultrafast "
            f"threads=1 bitrate={kbps} "
            f"key-int-max={max(1, round(fps * key_int_s))} "
            f"vbv-buf-capacity=300 ! video/x-h264,profile=constrained-baseline"
            f" ! rtph264pay name=pay pt=96 mtu=1200 config-interval=-1 "
            f"aggregate-mode=zero-latency")


# --------------------------------------------------------------------------
def cmd_send(a):
    w, h, fps = a.width, a.height, a.fps
    media = media_desc(w, h, fps, a.start_kbps, a.key_int_s)
    if a.stack == "ours":
        # fecenc picks its code from the loss rtpccsink reports upstream,
        # within the share of the target rtpccsink reserves for it
        desc = (media + (" ! fecenc name=fec scheme=auto" if fec(a.repair)
                         else "")
                + f" ! rtpccsink name=sink host={a.host} "
                f"port={a.port} bind-port={a.bind_port} "
                f"controller={a.controller} min-bitrate={a.min_kbps * 1000} "
                f"max-bitrate={a.max_kbps * 1000} "
                f"start-bitrate={a.start_kbps * 1000}"
                + (f" rtx-payload-type={RTX_PT}" if nacks(a.repair)
                   else "")
                + (f" max-fec-share={FEC_SHARE}" if fec(a.repair) else "")
                + (f" encoder-buffer={a.encoder_buffer}"
                   if a.encoder_buffer is not None else "")
                + (f' controller-params="{a.controller_params}"'
                   if a.controller_params else ""))
    else:
        desc = (media + f" ! rtpgccbwe name=bwe ! rtpbin.send_rtp_sink_0 "
                f"rtpbin name=rtpbin rtp-profile=avpf "
                f"rtpbin.send_rtp_src_0 ! udpsink name=rtpsink host={a.host} "
                f"port={a.port} bind-port={a.bind_port} sync=false "
                f"async=false rtpbin.send_rtcp_src_0 ! udpsink "
                f"host={a.host} port={a.port + 1} sync=false async=false "
                f"udpsrc port={a.bind_port + 1} caps=application/x-rtcp ! "
                f"rtpbin.recv_rtcp_sink_0")
    pipe = Gst.parse_launch(desc)
    appsrc = pipe.get_by_name("src")
    encoder = pipe.get_by_name("enc")
    sent = {"bytes": 0}
    lock = threading.Lock()
    target = {"bps": a.start_kbps * 1000}

    if a.stack == "ours":
        sink = pipe.get_by_name("sink")
    else:
        from gi.repository import GstRtp  # noqa: F401  (rtphdrext types)
        ext = Gst.ElementFactory.make("rtphdrexttwcc", None)
        ext.set_id(1)
        pipe.get_by_name("pay").emit("add-extension", ext)
        bwe = pipe.get_by_name("bwe")
        bwe.set_property("min-bitrate", a.min_kbps * 1000)
        bwe.set_property("max-bitrate", a.max_kbps * 1000)
        bwe.set_property("estimated-bitrate", a.start_kbps * 1000)

        def on_estimate(obj, _pspec):
            bps = obj.get_property("estimated-bitrate")
            target["bps"] = bps
            # kbit/s; 5 % left for RTP/UDP/IP overhead, as gcc-peer.md
            encoder.set_property("bitrate", max(50, int(bps // 1000 * 0.95)))
        bwe.connect("notify::estimated-bitrate", on_estimate)

        def count(_pad, info):
            with lock:
                for b in buffers(info):
                    sent["bytes"] += b.get_size()
            return Gst.PadProbeReturn.OK
        add_probe(pipe.get_by_name("rtpsink"), "sink", count)

    loop = GLib.MainLoop()
    state = {"failed": False}
    watch_bus(pipe, loop, state)
    csv = open(a.csv, "w")
    csv.write("time_s,target_kbps,send_kbps,rtt_ms,encoder_kbps\n")
    flog = open(a.frames, "w")
    flog.write("frame,t_capture\n")
    last = {"bytes": 0}

    def tick(ts):
        if a.stack == "ours":
            s = sink.get_property("stats")
            tgt = s.get_value("target-bitrate") if s else 0
            b = s.get_value("bytes-sent") if s else 0
            rtt = s.get_value("rtt") / 1e6 if s else float("nan")
        else:
            tgt = target["bps"]
            with lock:
                b = sent["bytes"]
            rtt = float("nan")
        csv.write(f"{ts:.1f},{tgt / 1000:.1f},"
                  f"{(b - last['bytes']) * 8 / 1000 / TICK:.1f},{rtt:.2f},"
                  f"{encoder.get_property('bitrate')}\n")
        csv.flush()
        last["bytes"] = b

    source = FrameSource(w, h, fps)
    pauses = [tuple(float(x) for x in p.split("-")) for p in a.pause]

    stop = threading.Event()
    d = a.t0 + a.start - time.time()
    if d > 0:
        time.sleep(d)
    pipe.set_state(Gst.State.PLAYING)
    th = threading.Thread(target=feed_frames, daemon=True, args=(
        appsrc, source, flog, fps, a.t0, a.start, a.stop, stop, pauses))
    th.start()
    Ticker(a.t0, a.stop, tick).start()
    run_until(loop, a.t0, a.stop + 0.3)
    stop.set()
    th.join(2)
    if a.stack == "ours":
        s = sink.get_property("stats")
        sys.stdout.write(f"sender stats: {s.to_string() if s else ''}\n")
        if fec(a.repair):
            s = pipe.get_by_name("fec").get_property("stats")
            sys.stdout.write(f"fecenc stats: {s.to_string() if s else ''}\n")
    pipe.set_state(Gst.State.NULL)
    source.close()
    flog.close()
    csv.close()
    return 1 if state["failed"] else 0


# --------------------------------------------------------------------------
class RtpCounter:
    """Per-tick received bytes and loss from RTP sequence numbers, and the
    RFC 8868 RTP log (timestamp PT SSRC seq rtp_ts marker payload_size)."""

    def __init__(self, log_path, skip_pt=None):
        self.skip_pt = skip_pt
        self.lock = threading.Lock()
        self.bytes = 0
        self.packets = 0
        self.ext_max = None
        self.cycles = 0
        self.log = open(log_path, "w") if log_path else None

    def probe(self, _pad, info):
        now = time.time()
        with self.lock:
            for b in buffers(info):
                size = b.get_size()
                hdr = b.extract_dup(0, min(size, 16))
                if len(hdr) < 12 or hdr[0] >> 6 != 2 or 72 <= hdr[1] & 0x7F \
                        <= 79:
                    continue    # not RTP (or RTCP, on muxed ports)
                pt = hdr[1] & 0x7F
                if pt == self.skip_pt:
                    continue
                marker = hdr[1] >> 7
                seq, rts, ssrc = struct.unpack("!HII", hdr[2:12])
                self.bytes += size
                self.packets += 1
                if self.ext_max is None:
                    self.ext_max = seq
                    self.first = seq
                else:
                    cur = self.ext_max & 0xFFFF
                    delta = (seq - cur + 0x8000) % 0x10000 - 0x8000
                    if delta > 0:
                        self.ext_max += delta
                if self.log:
                    payload = size - 12 - 4 * (hdr[0] & 0x0F)
                    self.log.write(f"{now:.6f} {pt} {ssrc:08x} {seq} {rts} "
                                   f"{marker} {payload}\n")
        return Gst.PadProbeReturn.OK

    def snapshot(self):
        with self.lock:
            exp = (self.ext_max - self.first + 1) if self.ext_max is not None \
                else 0
            return self.bytes, self.packets, exp

    def close(self):
        if self.log:
            self.log.close()


def cmd_recv(a):
    w, h = a.width, a.height
    tail = ("rtph264depay name=depay ! h264parse ! avdec_h264 ! videoconvert ! "
            f"video/x-raw,format=I420,width={w},height={h} ! "
            "appsink name=out sync=false emit-signals=true max-buffers=30")
    if a.stack == "ours":
        rep = (f"repair=nack rtx-payload-type={RTX_PT} keyframe-request=pli "
               f"playout-delay={a.jitter_ms} " if nacks(a.repair) else "")
        if a.repair == "both":
            # the planner reads the parity: it NACKs only what FEC cannot
            # rebuild; the playout delay goes back in RTCP XR, so that
            # rtpccsink max-fec-share leaves to NACK what it repairs in time
            rep += f"fec-pt={FEC_PT} xr-blocks=discard-rle+dejitter "
        # fecdec waits for a missing packet half the jitter buffer's
        # latency, so what it holds back still reaches the buffer in time
        dec = (f"fecdec name=fecdec deadline={a.jitter_ms // 2} ! "
               if fec(a.repair) else "")
        if a.remb:
            rep += "remb=true "
        if a.nadu:
            # frames are judged against the jitter buffer's latency
            rep += "nadu=true " + ("" if nacks(a.repair) else
                                   f"playout-delay={a.jitter_ms} ")
        desc = (f"rtpccsrc name=src port={a.port} address=0.0.0.0 " + rep +
                f"caps=\"{h264_caps()}\" ! " + dec + "rtpjitterbuffer latency="
                f"{a.jitter_ms} ! " + tail)
    else:
        desc = (f"rtpbin name=rtpbin rtp-profile=avpf latency={a.jitter_ms} "
                f"udpsrc name=src port={a.port} buffer-size=4194304 "
                f"caps=\"{h264_caps(',extmap-1=(string)' + TWCC_URI)}\" ! "
                f"rtpbin.recv_rtp_sink_0 udpsrc port={a.port + 1} "
                f"caps=application/x-rtcp ! rtpbin.recv_rtcp_sink_0 "
                f"rtpbin.send_rtcp_src_0 ! udpsink host={a.peer_host} "
                f"port={a.peer_port + 1} sync=false async=false "
                + tail)
    pipe = Gst.parse_launch(desc)
    if a.stack != "ours":
        # the decoding chain was parsed unlinked; link the session's pad
        depay = pipe.get_by_name("depay")
        rtpbin = pipe.get_by_name("rtpbin")

        def on_pad(_bin, pad):
            if pad.get_name().startswith("recv_rtp_src_0"):
                pad.link(depay.get_static_pad("sink"))
        rtpbin.connect("pad-added", on_pad)
    # the parity is not media: neither received media nor a loss
    counter = RtpCounter(a.rtp_log, skip_pt=FEC_PT if fec(a.repair) else None)
    add_probe(pipe.get_by_name("src"), "src", counter.probe)
    # post-repair (RFC 8868): what reaches the depayloader, after the jitter
    # buffer's repair window (late packets it gives up on count as lost)
    post = RtpCounter(None)
    add_probe(pipe.get_by_name("depay"), "sink", post.probe)
    out = pipe.get_by_name("out")
    frames = DecodedFrames(out, w, h, a.frames, a.raw)

    loop = GLib.MainLoop()
    state = {"failed": False}
    watch_bus(pipe, loop, state)
    csv = open(a.csv, "w")
    csv.write("time_s,recv_kbps,loss_pct,packets,expected,post_packets,"
              "post_expected\n")
    last = {"b": 0, "p": 0, "e": 0}

    def tick(ts):
        b, p, e = counter.snapshot()
        de, dp = e - last["e"], p - last["p"]
        loss = max(0.0, 100.0 * (de - dp) / de) if de > 0 else 0.0
        _pb, pp, pe = post.snapshot()
        csv.write(f"{ts:.1f},{(b - last['b']) * 8 / 1000 / TICK:.1f},"
                  f"{loss:.2f},{p},{e},{pp},{pe}\n")
        csv.flush()
        last.update(b=b, p=p, e=e)

    pipe.set_state(Gst.State.PLAYING)
    # the sockets are bound in READY->PAUSED, done when set_state returns
    # (the sink prerolls only with the first frame): senders may start
    open(a.csv + ".ready", "w").close()
    Ticker(a.t0, a.stop, tick).start()
    run_until(loop, a.t0, a.stop + 0.3)
    if a.stack == "ours":
        s = pipe.get_by_name("src").get_property("stats")
        sys.stdout.write(f"receiver stats: {s.to_string() if s else ''}\n")
        if fec(a.repair):
            s = pipe.get_by_name("fecdec").get_property("stats")
            sys.stdout.write(f"fecdec stats: {s.to_string() if s else ''}\n")
    pipe.set_state(Gst.State.NULL)
    counter.close()
    frames.close()
    csv.close()
    return 1 if state["failed"] else 0


# --------------------------------------------------------------------------
def cmd_relay(a):
    """Loopback path for one flow: socket A faces the sender (and sends its
    feedback back from the address the sender sends to), socket B the
    receiver, as pipelines/relay.c."""
    from gi.repository import Gio

    def bind(port):
        s = Gio.Socket.new(Gio.SocketFamily.IPV4, Gio.SocketType.DATAGRAM,
                           Gio.SocketProtocol.UDP)
        s.bind(Gio.InetSocketAddress.new_from_string("127.0.0.1", port),
               True)
        return s
    sa, sb = bind(a.listen), bind(0)

    def direction(s_in, s_out, props, port):
        p = Gst.parse_launch(
            f"udpsrc name=src close-socket=false buffer-size=4194304 ! "
            f"linkemu name=emu {props} ! udpsink name=sink "
            f"close-socket=false sync=false async=false host=127.0.0.1 "
            f"port={port}")
        p.get_by_name("src").set_property("socket", s_in)
        p.get_by_name("sink").set_property("socket", s_out)
        return p
    fwd = direction(sa, sb, a.forward, a.to_port)
    rev = direction(sb, sa, a.reverse, a.sender_port)
    emu = fwd.get_by_name("emu")
    loop = GLib.MainLoop()
    state = {"failed": False}
    watch_bus(fwd, loop, state)
    watch_bus(rev, loop, state)
    csv = open(a.csv, "w")
    csv.write("time_s,capacity_kbps,queue_delay_ms,link_drops,link_packets\n")

    def tick(ts):
        s = emu.get_property("stats")
        # an unlimited link has no capacity field: -1 in the CSV
        cap = -1000 if s.get_value("unlimited") else s.get_value("capacity")
        csv.write(f"{ts:.1f},{cap / 1000:.1f},"
                  f"{s.get_value('queue-delay') / 1e6:.2f},"
                  f"{s.get_value('queue-drops') + s.get_value('loss-drops')},"
                  f"{s.get_value('packets-in')}\n")
        csv.flush()
    # schedule time 0 is case time 0: start the link just before t0 (the
    # first media packet leaves at t0 at the earliest)
    d = a.t0 - 0.05 - time.time()
    if d > 0:
        time.sleep(d)
    fwd.set_state(Gst.State.PLAYING)
    rev.set_state(Gst.State.PLAYING)
    Ticker(a.t0, a.stop, tick).start()
    run_until(loop, a.t0, a.stop + 0.5)
    fwd.set_state(Gst.State.NULL)
    rev.set_state(Gst.State.NULL)
    csv.close()
    return 1 if state["failed"] else 0


# --------------------------------------------------------------------------
class SeqLog:
    """Media sequence number and wall time of every RTP packet through a pad
    (docs/multipath.md, "Real time": one-way delay and residual loss per
    packet, both ends on the same clock)."""

    def __init__(self, path):
        self.f = open(path, "w")
        self.lock = threading.Lock()

    def probe(self, _pad, info):
        now = time.time()
        with self.lock:
            for b in buffers(info):
                hdr = b.extract_dup(0, min(b.get_size(), 4))
                if len(hdr) == 4 and hdr[0] >> 6 == 2 and \
                        not 72 <= hdr[1] & 0x7F <= 79:
                    seq = struct.unpack("!H", hdr[2:4])[0]
                    self.f.write(f"{now:.6f} {seq} {b.get_size()}\n")
        return Gst.PadProbeReturn.OK

    def close(self):
        with self.lock:
            self.f.close()


def cmd_mp_send(a):
    """Multipath sender: frames -> x264enc -> rtph264pay -> mprtpsched with
    one src pad per --port, each to its own rtpccsink (one path = mprtpsched
    as a passthrough, the same pipeline shape as two)."""
    w, h, fps = a.width, a.height, a.fps
    ports = [int(x) for x in a.ports.split(",")]
    binds = [int(x) for x in a.bind_ports.split(",")]
    rates = [int(x) for x in a.start_kbps.split(",")]
    rates += rates[-1:] * (len(ports) - len(rates))
    desc = (media_desc(w, h, fps, sum(rates), a.key_int_s) +
            f" ! mprtpsched name=m {a.sched_props} ")
    for i, (port, bind) in enumerate(zip(ports, binds)):
        desc += (f" m.src_{i} ! rtpccsink name=s{i} host={a.host} port={port} "
                 f"bind-port={bind} controller={a.controller} "
                 f"min-bitrate={a.min_kbps * 1000} "
                 f"max-bitrate={a.max_kbps * 1000} "
                 f"start-bitrate={rates[i] * 1000}")
    pipe = Gst.parse_launch(desc)
    appsrc = pipe.get_by_name("src")
    encoder = pipe.get_by_name("enc")
    sched = pipe.get_by_name("m")
    sinks = [pipe.get_by_name(f"s{i}") for i in range(len(ports))]
    seqlog = SeqLog(a.seq_log)
    add_probe(pipe.get_by_name("pay"), "src", seqlog.probe)
    loop = GLib.MainLoop()
    state = {"failed": False}
    watch_bus(pipe, loop, state)
    csv = open(a.csv, "w")
    csv.write("time_s,aggregate_kbps,encoder_kbps" + "".join(
        f",target{i}_kbps,send{i}_kbps,rtt{i}_ms" for i in range(len(ports)))
        + "\n")
    flog = open(a.frames, "w")
    flog.write("frame,t_capture\n")
    last = [0] * len(ports)

    def tick(ts):
        agg = sched.get_property("target-bitrate")
        row = [f"{ts:.1f}", f"{agg / 1000:.1f}",
               str(encoder.get_property("bitrate"))]
        for i, sink in enumerate(sinks):
            s = sink.get_property("stats")
            b = s.get_value("bytes-sent") if s else 0
            tgt = s.get_value("target-bitrate") if s else 0
            row += [f"{tgt / 1000:.1f}",
                    f"{(b - last[i]) * 8 / 1000 / TICK:.1f}",
                    f"{(s.get_value('rtt') if s else 0) / 1e6:.2f}"]
            last[i] = b
        csv.write(",".join(row) + "\n")
        csv.flush()

    source = FrameSource(w, h, fps)
    stop = threading.Event()

    d = a.t0 - time.time()
    if d > 0:
        time.sleep(d)
    pipe.set_state(Gst.State.PLAYING)
    th = threading.Thread(target=feed_frames, daemon=True, args=(
        appsrc, source, flog, fps, a.t0, 0.0, a.stop, stop))
    th.start()
    Ticker(a.t0, a.stop, tick).start()
    run_until(loop, a.t0, a.stop + 0.3)
    stop.set()
    th.join(2)
    s = sched.get_property("stats")
    sys.stdout.write(f"mprtpsched stats: {s.to_string() if s else ''}\n")
    for sink in sinks:
        s = sink.get_property("stats")
        sys.stdout.write(f"sender stats: {s.to_string() if s else ''}\n")
    pipe.set_state(Gst.State.NULL)
    source.close()
    seqlog.close()
    flog.close()
    csv.close()
    return 1 if state["failed"] else 0


def cmd_mp_recv(a):
    """Multipath receiver: one rtpccsrc per --port into playoutbuffer's
    request pads, then the decoder; logs every packet per path (before the
    merge) and after the playout buffer (what the decoder gets)."""
    w, h = a.width, a.height
    ports = [int(x) for x in a.ports.split(",")]
    desc = ""
    for i, port in enumerate(ports):
        desc += (f"rtpccsrc name=r{i} port={port} address=127.0.0.1 "
                 f"caps=\"{h264_caps()}\" ! pb.sink_{i} ")
    desc += (f"playoutbuffer name=pb {a.playout} ! rtph264depay name=depay ! "
             f"h264parse ! avdec_h264 ! videoconvert ! "
             f"video/x-raw,format=I420,width={w},height={h} ! "
             "appsink name=out sync=false emit-signals=true max-buffers=30")
    pipe = Gst.parse_launch(desc)
    logs = []
    for i in range(len(ports)):
        lg = SeqLog(f"{a.seq_log}.path{i}")
        add_probe(pipe.get_by_name(f"r{i}"), "src", lg.probe)
        logs.append(lg)
    post = SeqLog(f"{a.seq_log}.post")
    add_probe(pipe.get_by_name("depay"), "sink", post.probe)
    logs.append(post)
    out = pipe.get_by_name("out")
    frames = DecodedFrames(out, w, h, a.frames, a.raw)
    loop = GLib.MainLoop()
    state = {"failed": False}
    watch_bus(pipe, loop, state)
    pipe.set_state(Gst.State.PLAYING)
    open(a.seq_log + ".ready", "w").close()
    run_until(loop, a.t0, a.stop + 0.6)
    for i in range(len(ports)):
        s = pipe.get_by_name(f"r{i}").get_property("stats")
        sys.stdout.write(f"receiver stats: {s.to_string() if s else ''}\n")
    s = pipe.get_by_name("pb").get_property("stats")
    sys.stdout.write(f"playout stats: {s.to_string() if s else ''}\n")
    pipe.set_state(Gst.State.NULL)
    for lg in logs:
        lg.close()
    frames.close()
    return 1 if state["failed"] else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--t0", type=float, required=True)
    common.add_argument("--stop", type=float, required=True,
                        help="case time (s) at which to stop")
    common.add_argument("--csv", required=True)
    common.add_argument("--stack", choices=("ours", "gcc"), default="ours")
    common.add_argument("--width", type=int, default=480)
    common.add_argument("--height", type=int, default=270)
    common.add_argument("--fps", type=int, default=30)
    common.add_argument("--repair", choices=REPAIRS, default="none",
                        help="ours: nack: NACK/RTX and PLI; fec: fecenc/"
                             "fecdec; both: the two, the NACK planner "
                             "reading the parity (docs/repair.md)")
    s = sub.add_parser("send", parents=[common])
    s.add_argument("--host", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--bind-port", type=int, required=True)
    s.add_argument("--controller", default="gcc")
    s.add_argument("--controller-params", default=None,
                   help="ours: rtpccsink controller-params, key=value;...")
    s.add_argument("--min-kbps", type=int, default=150)
    s.add_argument("--max-kbps", type=int, default=1500)
    s.add_argument("--start-kbps", type=int, default=150)
    s.add_argument("--start", type=float, default=0.0)
    s.add_argument("--key-int-s", type=float, default=4.0,
                   help="a key frame at least this often (s)")
    s.add_argument("--pause", action="append", default=[],
                   help="A-B: send no frames from case time A to B")
    s.add_argument("--frames", required=True)
    s.add_argument("--encoder-buffer", type=int, default=None)
    r = sub.add_parser("recv", parents=[common])
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--peer-host", default="127.0.0.1")
    r.add_argument("--peer-port", type=int, default=0)
    r.add_argument("--jitter-ms", type=int, default=100)
    r.add_argument("--remb", action="store_true",
                   help="ours: rtpccsrc remb=true (for controller rrtcc)")
    r.add_argument("--nadu", action="store_true",
                   help="ours: rtpccsrc nadu=true (for controller cnadu)")
    r.add_argument("--frames", required=True)
    r.add_argument("--raw")
    r.add_argument("--rtp-log")
    y = sub.add_parser("relay", parents=[common])
    y.add_argument("--listen", type=int, required=True)
    y.add_argument("--to-port", type=int, required=True)
    y.add_argument("--sender-port", type=int, required=True)
    y.add_argument("--forward", default="")
    y.add_argument("--reverse", default="")
    geo = argparse.ArgumentParser(add_help=False)
    geo.add_argument("--t0", type=float, required=True)
    geo.add_argument("--stop", type=float, required=True)
    geo.add_argument("--width", type=int, default=480)
    geo.add_argument("--height", type=int, default=270)
    geo.add_argument("--fps", type=int, default=30)
    geo.add_argument("--ports", required=True, help="one per path, a,b")
    geo.add_argument("--seq-log", required=True)
    geo.add_argument("--frames", required=True)
    ms = sub.add_parser("mprtp-send", parents=[geo],
                        help="mprtpsched over one rtpccsink per path")
    ms.add_argument("--csv", required=True)
    ms.add_argument("--host", default="127.0.0.1")
    ms.add_argument("--bind-ports", required=True)
    ms.add_argument("--controller", default="gcc")
    ms.add_argument("--min-kbps", type=int, default=150)
    ms.add_argument("--max-kbps", type=int, default=1500)
    ms.add_argument("--start-kbps", default="300",
                    help="per path (fixed: the path's rate), a[,b]")
    ms.add_argument("--sched-props", default="")
    ms.add_argument("--key-int-s", type=float, default=4.0)
    mr = sub.add_parser("mprtp-recv", parents=[geo],
                        help="one rtpccsrc per path into playoutbuffer")
    mr.add_argument("--playout", default="max-delay=400")
    mr.add_argument("--raw")
    a = p.parse_args()
    Gst.init(None)
    return {"send": cmd_send, "recv": cmd_recv, "relay": cmd_relay,
            "mprtp-send": cmd_mp_send, "mprtp-recv": cmd_mp_recv}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
