#!/bin/sh
# Audio + video sender through sendbuffer: audio (G.711, 20 ms) above video
# (H.264) in one queue in front of rtpccsink, which drains it at the
# controller's pacing rate; POLICY decides what is dropped (docs/sendbuffer.md).
#   pipelines/sendbuffer-sender.sh [HOST] [PORT] [POLICY] [CONTROLLER]
# Receiver (PT 0 audio and PT 96 video on one port):
#   gst-launch-1.0 rtpccsrc port=5002 caps=application/x-rtp ! fakesink
# The sendbuffer stats are printed once a second (gst-launch -m).
HOST=${1:-127.0.0.1}
PORT=${2:-5002}
POLICY=${3:-ring-sfdps2}
CONTROLLER=${4:-tfrc}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="${GST_PLUGIN_PATH:+$GST_PLUGIN_PATH:}$here/build/plugins"
exec gst-launch-1.0 -e -m \
  sendbuffer name=sb policy="$POLICY" budget=200 max-packets=64 ! \
  rtpccsink host="$HOST" port="$PORT" controller="$CONTROLLER" \
    min-bitrate=100000 max-bitrate=3000000 start-bitrate=300000 \
  audiotestsrc is-live=true samplesperbuffer=160 ! \
  audio/x-raw,rate=8000,channels=1 ! mulawenc ! \
  rtppcmupay min-ptime=20000000 max-ptime=20000000 ! sb. \
  videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! \
  video/x-raw,width=640,height=360,framerate=30/1 ! timeoverlay ! \
  x264enc tune=zerolatency speed-preset=ultrafast bitrate=300 key-int-max=120 ! \
  video/x-h264,profile=constrained-baseline ! \
  rtph264pay pt=96 mtu=1200 config-interval=-1 ! sb.
