#!/bin/sh
# A STOCK GStreamer (1.22) receiver for rtpccsink feedback=twcc: rtpbin and
# nothing of ours. rtpbin's rtpsession sends TWCC feedback (RTPFB FMT 15)
# once per frame, plus RR/SDES, and answers rtpccsink's SRs (RTCP-mux).
#
#   pipelines/stock-receiver.sh [PORT] [RTCP_HOST] [RTCP_PORT] [SINK] [ADDRESS]
#
#   PORT       RTP in (default 5002), on ADDRESS (default 127.0.0.1)
#   RTCP_HOST:RTCP_PORT  where the feedback goes (default 127.0.0.1:5006):
#              rtpccsink's bind-port when it sends straight here, or the
#              receiver-facing port of a relay
#   SINK       video sink, may carry properties (default autovideosink;
#              "fpsdisplaysink video-sink=fakesink text-overlay=false" with
#              gst-launch -v for a headless run that shows the frame rate)
#   TWCC_ID    environment: the one-byte extension ID, = rtpccsink twcc-ext-id
#              (default 1)
#
# rtpccsink accepts feedback only from the host:port it sends to, so the
# feedback must leave from PORT. gst-launch cannot hand one socket to both
# udpsrc and udpsink; instead the udpsink binds PORT as well, on the
# wildcard address, while the udpsrc binds ADDRESS:PORT. Both get
# SO_REUSEADDR/SO_REUSEPORT from GLib; Linux delivers a datagram to the
# socket bound to the more specific address, so the RTP still reaches the
# udpsrc and the udpsink merely sends from PORT. ADDRESS must therefore be
# the exact address the sender sends to (not 0.0.0.0: two wildcard sockets
# would share the traffic by hash, and the RTP could land in the udpsink).
# See docs/transport.md, "Interop with a stock receiver".
#
# Direct, without a relay (the sender binds a known port for the feedback):
#   pipelines/stock-receiver.sh 5002 127.0.0.1 5006 &
#   gst-launch-1.0 videotestsrc is-live=true ! video/x-raw,width=640,height=360,framerate=30/1 ! \
#     x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 ! rtph264pay pt=96 config-interval=-1 ! \
#     rtpccsink host=127.0.0.1 port=5002 bind-port=5006 feedback=twcc controller=gcc
PORT=${1:-5002}
RTCP_HOST=${2:-127.0.0.1}
RTCP_PORT=${3:-5006}
SINK=${4:-autovideosink}
ADDRESS=${5:-127.0.0.1}
TWCC_ID=${TWCC_ID:-1}
TWCC_URI=http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01

# rtp-profile=avpf: TWCC is early RTCP; under AVP it waits for the regular
#   schedule (first feedback after seconds).
# max-streams=1: only needed with rtpccsink probe-ssrc-mode=separate
#   probing=true (probes on an SSRC of their own: rtpbin would expose a
#   second recv_rtp_src pad that gst-launch leaves unlinked, and not-linked
#   stops the udpsrc). The default with feedback=twcc puts the probes on the
#   media SSRC, which needs nothing; kept as a safety net.
# rtpsession0::rtcp-min-interval: report blocks (LSR/DLSR, rtpccsink's RTT
#   in TWCC mode) ride only on regular RTCP, which per-frame TWCC keeps
#   postponing; 500 ms instead of 5 s brings them about once a second.
#   (rtpsession0 is the session of the first rtpbin in the process.)
exec gst-launch-1.0 -e \
  rtpbin name=rtpbin rtp-profile=avpf latency=100 max-streams=1 \
    rtpsession0::rtcp-min-interval=500000000 \
  udpsrc address="$ADDRESS" port="$PORT" buffer-size=4194304 \
    caps="application/x-rtp,media=(string)video,clock-rate=(int)90000,encoding-name=(string)H264,payload=(int)96,extmap-$TWCC_ID=(string)$TWCC_URI" ! \
    rtpbin.recv_rtp_sink_0 \
  rtpbin.send_rtcp_src_0 ! \
    udpsink host="$RTCP_HOST" port="$RTCP_PORT" bind-address=0.0.0.0 \
      bind-port="$PORT" sync=false async=false \
  rtpbin. ! rtph264depay ! h264parse ! avdec_h264 ! videoconvert ! \
    $SINK sync=false
