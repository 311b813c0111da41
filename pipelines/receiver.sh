#!/bin/sh
# Receiver: rtpccsrc sends CCFB + RR feedback back to wherever the media
# comes from (the sender, or rtpcc-relay's listen port).
#   pipelines/receiver.sh [PORT] [SINK]
PORT=${1:-5002}
SINK=${2:-autovideosink}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="${GST_PLUGIN_PATH:+$GST_PLUGIN_PATH:}$here/build/plugins"
exec gst-launch-1.0 -e \
  rtpccsrc port="$PORT" \
    caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" ! \
  rtpjitterbuffer latency=100 ! rtph264depay ! h264parse ! avdec_h264 ! \
  videoconvert ! "$SINK" sync=false
