#!/bin/sh
# Adaptive H.264 sender: x264enc's bitrate follows rtpccsink's target.
#   pipelines/sender.sh [HOST] [PORT] [CONTROLLER]
# Run from the source tree after ./run build (or with the plugins installed).
# With rtpcc-relay in between: pipelines/sender.sh 127.0.0.1 5000
HOST=${1:-127.0.0.1}
PORT=${2:-5000}
CONTROLLER=${3:-tfrc}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="${GST_PLUGIN_PATH:+$GST_PLUGIN_PATH:}$here/build/plugins"
exec gst-launch-1.0 -e \
  videotestsrc is-live=true pattern=smpte horizontal-speed=4 ! \
  video/x-raw,width=640,height=360,framerate=30/1 ! timeoverlay ! \
  x264enc tune=zerolatency speed-preset=ultrafast bitrate=300 key-int-max=120 ! \
  video/x-h264,profile=constrained-baseline ! \
  rtph264pay pt=96 mtu=1200 config-interval=-1 ! \
  rtpccsink host="$HOST" port="$PORT" controller="$CONTROLLER" \
    min-bitrate=150000 max-bitrate=3000000 start-bitrate=300000
