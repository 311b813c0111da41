#!/bin/sh
# The emulated path between sender.sh (to :5000) and receiver.sh (on :5002):
# RFC 8867 5.1 capacity schedule, 300 ms drop-tail queue, 50 ms each way.
#   pipelines/relay.sh [SCHEDULE]
SCHEDULE=${1:-1000@0,2500@40,600@60,1000@80}
here=$(cd "$(dirname "$0")/.." && pwd)
export GST_PLUGIN_PATH="${GST_PLUGIN_PATH:+$GST_PLUGIN_PATH:}$here/build/plugins"
exec "$here/build/pipelines/rtpcc-relay" --listen 5000 --to 127.0.0.1:5002 \
  --forward "schedule=$SCHEDULE queue-ms=300 delay=50" --reverse "delay=50"
