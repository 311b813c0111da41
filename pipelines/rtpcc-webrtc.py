#!/usr/bin/python3
"""A WebRTC call with an rtpcc congestion controller: webrtcbin sends video
to a browser, rtpccbwe (the controller, the pacer and encoder control)
placed through webrtcbin's request-aux-sender, fed by the browser's
transport-wide congestion control feedback. docs/webrtc.md explains it.

  pipelines/rtpcc-webrtc.py [--address 127.0.0.1] [--port 8080]
      [--controller gcc] [--codec vp8|h264] [--duration S] [--receive]
      [--log FILE] [--ready-file FILE]

then open http://ADDRESS:PORT/ in a browser. The page gets an SDP offer
from /offer (its ICE candidates included: no trickle), answers on
/answer, and shows our video. With ?send=1 it also sends its camera back
(which --receive decodes and counts); with ?stats=1 it posts its
getStats() every 500 ms to /stats, which goes into --log (JSON lines, with
our own sender's figures every 200 ms). One peer per run.

Needs GStreamer's webrtcbin (gstreamer1.0-plugins-bad) and libnice's
plugin (gstreamer1.0-nice), GST_PLUGIN_PATH pointing at build/plugins.
Run with the system python3 (GStreamer introspection).
"""
import argparse
import http.server
import json
import os
import re
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
gi.require_version("GstRtp", "1.0")
from gi.repository import GLib, Gst, GstRtp, GstSdp, GstWebRTC  # noqa: E402

TWCC_URI = ("http://www.ietf.org/id/"
            "draft-holmer-rmcat-transport-wide-cc-extensions-01")
TWCC_ID = 1

ENCODERS = {
    # encoder, payloader, encoding name; the bitrate property is
    # rtpccbwe's business (encoder-control=auto)
    # vp8enc drops frames rather than overshoot a low target (without,
    # this moving pattern stays near 750 kbit/s whatever the target), keeps
    # a rate-control buffer of 1 s as libwebrtc's VP8 does (the default 6 s
    # lets it make up an undershoot with seconds of double rate), and
    # answers at most one keyframe request (the browser's PLI) a second: a
    # burst of them after a loss would be a burst of keyframes into the
    # congested path
    "vp8": ("vp8enc name=enc deadline=1 cpu-used=8 threads=2 "
            "keyframe-max-dist=300 error-resilient=partitions "
            "end-usage=cbr undershoot=95 dropframe-threshold=30 "
            "buffer-size=1000 buffer-initial-size=500 buffer-optimal-size=600 "
            "min-force-key-unit-interval=1000000000 target-bitrate=300000",
            "rtpvp8pay name=pay pt=96 mtu=1200 picture-id-mode=15-bit",
            "VP8"),
    "h264": ("x264enc name=enc tune=zerolatency speed-preset=ultrafast "
             "key-int-max=300 min-force-key-unit-interval=1000000000 "
             "bitrate=300 ! "
             "video/x-h264,profile=constrained-baseline",
             "rtph264pay name=pay pt=96 mtu=1200 config-interval=-1 "
             "aggregate-mode=zero-latency",
             "H264"),
}

# what the browser's video goes through (--receive)
DECODERS = {
    "vp8": "queue ! rtpvp8depay ! vp8dec",
    "h264": "queue ! rtph264depay ! avdec_h264",
}

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>rtpcc WebRTC</title></head>
<body><video id="v" autoplay muted playsinline></video>
<script>
const q = new URLSearchParams(location.search);
const post = (path, body) => fetch(path, {method: "POST", body: body});
function gathered(pc) {
  return new Promise(done => {
    if (pc.iceGatheringState === "complete") return done();
    pc.addEventListener("icegatheringstatechange", () => {
      if (pc.iceGatheringState === "complete") done();
    });
    setTimeout(done, 5000);
  });
}
const KEEP = {
  "inbound-rtp": ["kind", "framesDecoded", "framesReceived", "framesDropped",
    "bytesReceived", "packetsReceived", "packetsLost", "freezeCount",
    "totalFreezesDuration", "frameWidth", "frameHeight",
    "jitterBufferDelay", "jitterBufferEmittedCount", "keyFramesDecoded",
    "retransmittedBytesReceived", "nackCount", "pliCount"],
  "outbound-rtp": ["kind", "bytesSent", "packetsSent", "framesEncoded",
    "targetBitrate", "frameWidth", "frameHeight",
    "qualityLimitationReason"],
  "remote-inbound-rtp": ["kind", "roundTripTime", "fractionLost",
    "packetsLost"],
  "candidate-pair": ["state", "nominated", "availableOutgoingBitrate",
    "currentRoundTripTime", "bytesSent", "bytesReceived"],
};
async function stats(pc) {
  const out = {t: Date.now() / 1000, connection: pc.connectionState};
  (await pc.getStats()).forEach(s => {
    const keep = KEEP[s.type];
    if (!keep) return;
    if (s.type === "candidate-pair" && !s.nominated) return;
    const o = {};
    keep.forEach(k => { if (s[k] !== undefined) o[k] = s[k]; });
    out[s.type] = out[s.type] || [];
    out[s.type].push(o);
  });
  post("/stats", JSON.stringify(out)).catch(() => {});
}
(async () => {
  const pc = new RTCPeerConnection({iceServers: []});
  pc.ontrack = e => {
    document.getElementById("v").srcObject = new MediaStream([e.track]);
  };
  const offer = await (await fetch("/offer")).text();
  await pc.setRemoteDescription({type: "offer", sdp: offer});
  if (q.get("send") === "1") {
    const cam = await navigator.mediaDevices.getUserMedia({video: {
      width: +(q.get("w") || 640), height: +(q.get("h") || 360),
      frameRate: +(q.get("fps") || 30)}});
    const t = pc.getTransceivers()[0];
    await t.sender.replaceTrack(cam.getVideoTracks()[0]);
    t.direction = "sendrecv";
  }
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  await post("/answer", pc.localDescription.sdp);
  if (q.get("stats") === "1") setInterval(() => stats(pc), 500);
})().catch(e => post("/stats", JSON.stringify({error: String(e)})));
</script></body></html>
"""


class Call:
    """The webrtcbin pipeline and what the HTTP handlers ask of it."""

    def __init__(self, a):
        self.a = a
        self.lock = threading.Lock()
        self.log = open(a.log, "a") if a.log else None
        self.t0 = time.time()
        self.candidates = []
        self.gathered = threading.Event()
        self.negotiation = threading.Event()
        self.offered = False
        self.frames_in = 0
        self.bwe = None
        enc, pay, name = ENCODERS[a.codec]
        # the payloader stamps the TWCC extension (so the offer names it)
        # and the caps ask for transport-cc feedback
        self.pipe = Gst.parse_launch(
            "webrtcbin name=webrtc bundle-policy=max-bundle latency=100 "
            "videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! "
            f"video/x-raw,width={a.width},height={a.height},"
            f"framerate={a.fps}/1 ! "
            f"{enc} ! {pay} ! application/x-rtp,media=video,"
            f"encoding-name={name},payload=96,clock-rate=90000,"
            "rtcp-fb-transport-cc=(boolean)true,"
            "rtcp-fb-nack-pli=(boolean)true ! webrtc.")
        ext = GstRtp.RTPHeaderExtension.create_from_uri(TWCC_URI)
        ext.set_id(TWCC_ID)
        self.pipe.get_by_name("pay").emit("add-extension", ext)
        self.webrtc = self.pipe.get_by_name("webrtc")
        self.enc = self.pipe.get_by_name("enc")
        # the controller: rtpccbwe in front of webrtcbin's rtpsession
        self.webrtc.connect("request-aux-sender", self.on_aux_sender)
        self.webrtc.connect("on-negotiation-needed",
                            lambda *_: self.negotiation.set())
        self.webrtc.connect("on-ice-candidate", self.on_candidate)
        self.webrtc.connect("notify::ice-gathering-state", self.on_gathering)
        self.webrtc.connect("pad-added", self.on_pad_added)
        bus = self.pipe.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)

    def on_aux_sender(self, webrtc, dtls_transport):
        bwe = Gst.ElementFactory.make("rtpccbwe", None)
        bwe.set_property("controller", self.a.controller)
        bwe.set_property("min-bitrate", 150000)
        bwe.set_property("max-bitrate", self.a.max_kbps * 1000)
        bwe.set_property("start-bitrate", 300000)
        self.bwe = bwe
        return bwe

    def on_candidate(self, webrtc, mline, candidate):
        with self.lock:
            self.candidates.append((mline, candidate))

    def on_gathering(self, webrtc, _pspec):
        if (webrtc.get_property("ice-gathering-state") ==
                GstWebRTC.WebRTCICEGatheringState.COMPLETE):
            self.gathered.set()

    def on_pad_added(self, webrtc, pad):
        # the browser's video (?send=1): decoded and counted
        if pad.get_direction() != Gst.PadDirection.SRC or not self.a.receive:
            return
        dec = Gst.parse_bin_from_description(
            DECODERS[self.a.codec] + " ! fakesink name=in sync=false", True)
        self.pipe.add(dec)
        dec.sync_state_with_parent()
        pad.link(dec.get_static_pad("sink"))
        sink = dec.get_by_name("in")
        sink.get_static_pad("sink").add_probe(
            Gst.PadProbeType.BUFFER, self.count_frame)

    def count_frame(self, _pad, _info):
        with self.lock:
            self.frames_in += 1
        return Gst.PadProbeReturn.OK

    def on_message(self, _bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            sys.stderr.write(f"ERROR {msg.src.get_name()}: {err.message} "
                             f"({dbg})\n")
            self.write({"src": "error", "message": err.message})
            GLib.idle_add(self.loop.quit)
        elif msg.type == Gst.MessageType.WARNING:
            err, _ = msg.parse_warning()
            sys.stderr.write(f"WARNING {msg.src.get_name()}: "
                             f"{err.message}\n")

    def write(self, obj):
        if not self.log:
            return
        obj.setdefault("wall", time.time())
        with self.lock:
            self.log.write(json.dumps(obj) + "\n")
            self.log.flush()

    # -- signalling (HTTP threads) --------------------------------------
    def offer(self):
        """The offer with our candidates in it (no trickle ICE)."""
        with self.lock:
            if self.offered:
                return None
            self.offered = True
        # webrtcbin says when it can make one (the video's caps are in)
        self.negotiation.wait(10)
        # NACK and RTX: a lost packet is resent (by webrtcbin's rtprtxsend,
        # within the budget rtpccbwe grants) rather than answered by a
        # keyframe the receiver waits seconds for
        self.webrtc.emit("get-transceiver", 0).set_property("do-nack", True)
        p = Gst.Promise.new()
        self.webrtc.emit("create-offer", None, p)
        p.wait()
        reply = p.get_reply()
        offer = reply.get_value("offer") if reply else None
        if offer is None:
            sys.stderr.write(f"no offer: {reply}\n")
            return None
        p = Gst.Promise.new()
        self.webrtc.emit("set-local-description", offer, p)
        p.wait()
        self.gathered.wait(10)
        sdp = offer.sdp.as_text()
        with self.lock:
            cands = list(self.candidates)
        return add_candidates(sdp, cands)

    def answer(self, text):
        ok, sdp = GstSdp.SDPMessage.new_from_text(text)
        if ok != GstSdp.SDPResult.OK:
            return False
        answer = GstWebRTC.WebRTCSessionDescription.new(
            GstWebRTC.WebRTCSDPType.ANSWER, sdp)
        p = Gst.Promise.new()
        self.webrtc.emit("set-remote-description", answer, p)
        p.wait()
        # the candidates the browser put in its answer
        mline = -1
        for line in text.splitlines():
            if line.startswith("m="):
                mline += 1
            elif line.startswith("a=candidate:"):
                self.webrtc.emit("add-ice-candidate", max(mline, 0),
                                 line[2:])
        return True

    # -- our own figures -------------------------------------------------
    def tick(self):
        if self.bwe is not None:
            s = self.bwe.get_property("stats")
            if s and s.has_field("target-bitrate"):
                o = {"src": "rtpccbwe", "t": time.time() - self.t0}
                for k in ("rtx-requests", "rtx-granted", "rtx-too-soon",
                          "rtx-rate-limited"):
                    if s.has_field(k):
                        o[k] = s.get_value(k)
                for k in ("target-bitrate", "media-bitrate", "send-rate",
                          "rtt", "reported-received", "reported-lost",
                          "twcc-events", "twcc-unmatched", "packets-sent",
                          "pacer-drops", "encoder-updates"):
                    o[k] = s.get_value(k)
                o["state"] = s.get_value("state")
                name = "bitrate" if self.a.codec == "h264" else \
                    "target-bitrate"
                o["encoder"] = self.enc.get_property(name)
                with self.lock:
                    o["frames-in"] = self.frames_in
                self.write(o)
        return True

    def run(self):
        self.loop = GLib.MainLoop()
        self.pipe.set_state(Gst.State.PLAYING)
        GLib.timeout_add(200, self.tick)
        if self.a.duration > 0:
            GLib.timeout_add(int(self.a.duration * 1000), self.loop.quit)
        self.loop.run()
        self.pipe.set_state(Gst.State.NULL)


def add_candidates(sdp, cands):
    """Our gathered candidates into the SDP's m-sections."""
    out, mline = [], -1
    lines = sdp.splitlines()

    def flush(m):
        for idx, c in cands:
            if idx == m:
                out.append("a=" + c)
        if m >= 0:
            out.append("a=end-of-candidates")
    for line in lines:
        if line.startswith("m="):
            flush(mline)
            mline += 1
        out.append(line)
    flush(mline)
    return "\r\n".join(out) + "\r\n"


def make_handler(call):
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):
            pass

        def reply(self, code, body, ctype="text/plain"):
            data = body.encode()
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/":
                self.reply(200, PAGE, "text/html; charset=utf-8")
            elif path == "/offer":
                sdp = call.offer()
                if sdp is None:
                    self.reply(409, "one peer per run")
                else:
                    self.reply(200, sdp, "application/sdp")
            else:
                self.reply(404, "not found")

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n).decode("utf-8", "replace")
            if self.path == "/answer":
                ok = call.answer(body)
                self.reply(200 if ok else 400, "ok" if ok else "bad sdp")
            elif self.path == "/stats":
                try:
                    obj = json.loads(body)
                except ValueError:
                    obj = {"error": "bad stats"}
                obj["src"] = "browser"
                call.write(obj)
                self.reply(200, "ok")
            else:
                self.reply(404, "not found")
    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--address", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080,
                   help="HTTP port (0: any; see --ready-file)")
    p.add_argument("--controller", default="gcc")
    p.add_argument("--codec", choices=sorted(ENCODERS), default="vp8")
    p.add_argument("--max-kbps", type=int, default=3000)
    p.add_argument("--width", type=int, default=640)
    p.add_argument("--height", type=int, default=360)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--duration", type=float, default=0,
                   help="seconds to run (0: until interrupted)")
    p.add_argument("--receive", action="store_true",
                   help="decode the browser's video (page ?send=1)")
    p.add_argument("--log", help="JSON lines: our figures, the page's stats")
    p.add_argument("--ready-file",
                   help="write the HTTP port here once listening")
    a = p.parse_args()
    if not re.fullmatch(r"[0-9a-fA-F.:]+", a.address):
        p.error("--address must be a literal IP address")

    Gst.init(None)
    for f in ("webrtcbin", "nicesrc", "rtpccbwe"):
        if not Gst.ElementFactory.find(f):
            sys.exit(f"GStreamer element {f} not found (webrtcbin: "
                     "gstreamer1.0-plugins-bad, nicesrc: gstreamer1.0-nice, "
                     "rtpccbwe: GST_PLUGIN_PATH=build/plugins)")
    call = Call(a)
    server = http.server.ThreadingHTTPServer((a.address, a.port),
                                             make_handler(call))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    print(f"open http://{a.address}:{port}/ in a browser", flush=True)
    if a.ready_file:
        tmp = a.ready_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.rename(tmp, a.ready_file)
    try:
        call.run()
    except KeyboardInterrupt:
        call.pipe.set_state(Gst.State.NULL)
    server.shutdown()


if __name__ == "__main__":
    main()
