#!/usr/bin/env bash
# A dumbbell of three network namespaces for real-time runs with real TCP
# (docs/realtime-eval.md). Needs root (CAP_NET_ADMIN).
#
#   ${P}s  10.77.1.1 ─veth─ 10.77.1.254  ${P}m  10.77.2.254 ═TUN═ 10.77.2.1  ${P}r
#   senders (media, iperf3 -c)   router: tbf bottleneck on m1      receivers
#                                (and on m0 for a reverse one)     (iperf3 -s)
#
# m1 ═══ r0 is a pair of TUN devices joined by rtpcc-delayline, a user-space
# wire built on the library's link model that gives every packet (UDP and
# TCP alike) the same one-way delay in each direction; netem is not
# available. The bottleneck queue is a drop-tail tbf on the router's egress
# towards the receivers: forwarded traffic, so TCP senders see a real
# router queue (not the local qdisc backpressure of TCP small queues).
#
#   netns.sh up DELAY_MS [PREFIX]     create (prints nothing on success)
#   netns.sh up2 [PREFIX]             short RTT instead: ${P}s and ${P}r joined
#                                     by one veth (s0 10.77.1.1, r0 10.77.2.1),
#                                     no router, no delay line; the
#                                     bottleneck is a tbf on the sender's own
#                                     s0 (rate ... s0 PREFIX s)
#   netns.sh rate KBPS [QUEUE_MS] [DEV] [PREFIX] [NS]  set/replace the
#                                     bottleneck; KBPS 0 is an outage
#   netns.sh stats [DEV] [PREFIX] [NS]  "backlog_bytes drops sent_packets rate_bps"
#   netns.sh down [PREFIX]            remove everything (idempotent)
#
# PREFIX defaults to rtpccev- ; DEV to m1 (forward), m0 is the reverse path;
# NS (the namespace suffix holding DEV) to m, the router.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cmd=${1:-}
shift || true
STATE=${RTPCC_EVAL_STATE:-/tmp/rtpcc-eval-netns}
DELAYLINE=${RTPCC_DELAYLINE:-}

find_delayline() {
  local c
  for c in "$DELAYLINE" "$here/../../../build/tests/eval/rt/rtpcc-delayline" \
      "${MESON_BUILD_ROOT:-/nonexistent}/tests/eval/rt/rtpcc-delayline"; do
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
  done
  echo "rtpcc-delayline not found (set RTPCC_DELAYLINE)" >&2
  return 1
}

down() {
  local P=${1:-rtpccev-} pidf="$STATE/${1:-rtpccev-}delayline.pid"
  if [ -f "$pidf" ]; then
    kill "$(cat "$pidf")" 2>/dev/null || true
    sleep 0.2
    rm -f "$pidf"
  fi
  for ns in "${P}s" "${P}m" "${P}r"; do
    if ip netns list | grep -qw "$ns"; then
      # end whatever still runs inside (our own senders/receivers/iperf3)
      for pid in $(ip netns pids "$ns" 2>/dev/null); do
        kill "$pid" 2>/dev/null || true
      done
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
}

up() {
  local delay=${1:?delay ms} P=${2:-rtpccev-} dl
  dl=$(find_delayline)
  down "$P"
  mkdir -p "$STATE"
  ip netns add "${P}s"
  ip netns add "${P}m"
  ip netns add "${P}r"
  for ns in s m r; do ip -n "${P}$ns" link set lo up; done
  ip link add s0 netns "${P}s" type veth peer name m0 netns "${P}m"
  ip -n "${P}s" addr add 10.77.1.1/24 dev s0
  ip -n "${P}m" addr add 10.77.1.254/24 dev m0
  ip -n "${P}s" link set s0 up
  ip -n "${P}m" link set m0 up
  ip -n "${P}s" route add default via 10.77.1.254
  ip netns exec "${P}m" sysctl -qw net.ipv4.ip_forward=1
  # large socket buffers for the media receivers and iperf3
  for ns in s r; do
    ip netns exec "${P}$ns" sysctl -qw net.core.rmem_max=8388608 \
      net.core.wmem_max=8388608 2>/dev/null || true
  done
  # RTPCC_DELAYLINE_ARGS: extra options, e.g. per-port delays (5.5);
  # word splitting intended
  # shellcheck disable=SC2086
  "$dl" --ns-a "${P}m" --dev-a m1 --ns-b "${P}r" --dev-b r0 --delay "$delay" \
    ${RTPCC_DELAYLINE_ARGS:-} >"$STATE/${P}delayline.log" 2>&1 &
  echo $! >"$STATE/${P}delayline.pid"
  for _ in $(seq 50); do
    ip -n "${P}r" link show r0 >/dev/null 2>&1 && \
      ip -n "${P}m" link show m1 >/dev/null 2>&1 && break
    sleep 0.1
  done
  ip -n "${P}m" addr add 10.77.2.254/24 dev m1
  ip -n "${P}r" addr add 10.77.2.1/24 dev r0
  ip -n "${P}m" link set m1 up
  ip -n "${P}r" link set r0 up
  ip -n "${P}r" route add default dev r0
}

up2() {
  local P=${1:-rtpccev-}
  down "$P"
  ip netns add "${P}s"
  ip netns add "${P}r"
  for ns in s r; do ip -n "${P}$ns" link set lo up; done
  ip link add s0 netns "${P}s" type veth peer name r0 netns "${P}r"
  ip -n "${P}s" addr add 10.77.1.1/24 dev s0
  ip -n "${P}r" addr add 10.77.2.1/24 dev r0
  ip -n "${P}s" link set s0 up
  ip -n "${P}r" link set r0 up
  # the other side's subnet is on the link
  ip -n "${P}s" route add 10.77.2.0/24 dev s0
  ip -n "${P}r" route add 10.77.1.0/24 dev r0
  for ns in s r; do
    ip netns exec "${P}$ns" sysctl -qw net.core.rmem_max=8388608 \
      net.core.wmem_max=8388608 2>/dev/null || true
  done
}

# tbf: rate, burst of ~2 full packets or 5 ms at rate (the simulator models
# the same bucket: EVAL_TBF_BURST_* in tests/eval/eval-run.h, keep them
# equal), and a drop-tail queue
# of QUEUE_MS at that rate ("latency"), as RFC 8867's "300 ms at capacity".
# An outage (0 kbit/s): tbf cannot be 0, so 8 bit/s whose bucket (225
# bytes at that rate) is smaller than any media packet: every one is
# dropped until the rate is set again.
rate() {
  local kbps=${1:?kbps} queue=${2:-300} dev=${3:-m1} P=${4:-rtpccev-}
  local ns=${5:-m} burst
  if [ "$kbps" = 0 ]; then
    ip netns exec "${P}$ns" tc qdisc replace dev "$dev" root tbf \
      rate 8bit burst 1600 limit 1600
    return
  fi
  burst=$(( kbps * 1000 / 8 * 5 / 1000 ))
  [ "$burst" -lt 3200 ] && burst=3200
  ip netns exec "${P}$ns" tc qdisc replace dev "$dev" root tbf \
    rate "${kbps}kbit" burst "$burst" latency "${queue}ms"
}

stats() {
  local dev=${1:-m1} P=${2:-rtpccev-} ns=${3:-m}
  ip netns exec "${P}$ns" tc -s -j qdisc show dev "$dev" | /usr/bin/python3 -c '
import json, sys
q = [x for x in json.load(sys.stdin) if x.get("root")][0]
rate = q.get("options", {}).get("rate", 0)
print(q.get("backlog", 0), q.get("drops", 0), q.get("packets", 0), rate)'
}

case "$cmd" in
  up) up "$@" ;;
  up2) up2 "$@" ;;
  down) down "$@" ;;
  rate) rate "$@" ;;
  stats) stats "$@" ;;
  *) sed -n '2,31p' "$0"; exit 2 ;;
esac
