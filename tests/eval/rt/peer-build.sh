#!/usr/bin/env bash
# Optional: build the gst-plugins-rs GCC peer (rtpgccbwe) from the crates.io
# crate gst-plugin-rtp 0.15.4 into out/peer/ (see docs/realtime-eval.md).
# Nothing fetched here is committed: out/ is a build product.
#
#   tests/eval/rt/peer-build.sh            -> out/peer/lib/libgstrsrtp.so
#
# Needs cargo (rustc >= 1.92) and the GStreamer -dev packages listed in ./run.
set -euo pipefail
here=$(cd "$(dirname "$0")/../../.." && pwd)
PEER_DIR=${PEER_DIR:-$here/out/peer}
VERSION=0.15.4
SHA256=7a3b08f5de8474a907c9ecd4dd9fae331ba099c2246ef1661e14aab0cf3cca23
mkdir -p "$PEER_DIR/lib"
if [ -f "$PEER_DIR/lib/libgstrsrtp.so" ] && [ "${FORCE:-0}" != 1 ]; then
  echo "peer already built: $PEER_DIR/lib/libgstrsrtp.so"; exit 0
fi
command -v cargo >/dev/null || { echo "peer-build: cargo not found" >&2; exit 77; }
# Keep all cargo state (registry cache, downloaded crates) inside out/peer.
export CARGO_HOME=$PEER_DIR/cargo-home
cd "$PEER_DIR"
crate=$(find "$CARGO_HOME/registry/cache" -name "gst-plugin-rtp-$VERSION.crate" 2>/dev/null | head -n1 || true)
if [ -z "$crate" ]; then
  cargo info "gst-plugin-rtp@$VERSION" >/dev/null
  crate=$(find "$CARGO_HOME/registry/cache" -name "gst-plugin-rtp-$VERSION.crate" | head -n1)
fi
echo "$SHA256  $crate" | sha256sum -c - >/dev/null \
  || { echo "peer-build: checksum mismatch for $crate" >&2; exit 1; }
rm -rf "gst-plugin-rtp-$VERSION"
tar xzf "$crate"
cd "gst-plugin-rtp-$VERSION"
# The packaged crate ships its Cargo.lock and builds a cdylib (plugin rsrtp).
start=$(date +%s)
cargo build --release --locked --lib -j "${PEER_JOBS:-1}"
cp target/release/libgstrsrtp.so "$PEER_DIR/lib/"
echo "peer built in $(( $(date +%s) - start )) s: $PEER_DIR/lib/libgstrsrtp.so"
GST_PLUGIN_PATH=$PEER_DIR/lib gst-inspect-1.0 rtpgccbwe >/dev/null \
  && echo "rtpgccbwe loads"
