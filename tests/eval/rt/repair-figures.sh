#!/usr/bin/env bash
# The "Measured" table of docs/repair.md: one flow (ours, gcc) on the 50 ms
# path of the matrix scenario loss-random (2 Mbit/s, media at most
# 1.5 Mbit/s: no congestion), x264enc key-int-max=300, jitter buffer 200 ms,
# loopback through linkemu (no root). Five runs with the same link seed:
# lossless, 2 % random loss and 1 % bursty loss (Gilbert p 0.00253, r 0.25:
# 0.00253 / (0.00253 + 0.25) = 1 %, bursts of 4 packets on average), each
# with and without NACK/RTX + PLI repair, and with FEC (fecenc
# scheme=auto under rtpccsink max-fec-share 0.2, fecdec) alone and together
# with NACK/RTX; and FEC alone and with NACK/RTX at 0.5 % random loss,
# where the receiver's reported playout delay lets rtpccsink choose a
# weaker code behind NACK. Prints the table in markdown.
#
#   tests/eval/rt/repair-figures.sh [--scale F] [--build DIR] [--table-only]
#       [--port-base N] [--runs NAME,NAME...]
#
# --scale 1 (default) runs the scenario's 60 s each; 0.5 runs 30 s.
# --port-base (default 47300): the runner's ports, N and up; give each
# concurrent run on a host its own. --runs: only these (the table shows
# the last result of every run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
scale=1
build="$src/build"
table_only=0
port_base=47300
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --table-only) table_only=1; shift ;;   # the table of the last runs
    --port-base) port_base=$2; shift 2 ;;
    --runs) only=",$2,"; shift 2 ;;
    *) echo "usage: $0 [--scale F] [--build DIR] [--table-only]" \
         "[--port-base N] [--runs NAME,...]" >&2; exit 2 ;;
  esac
done
out="$src/out/eval/rt/repair"
export GST_PLUGIN_PATH="$build/plugins${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
gst-inspect-1.0 x264enc >/dev/null 2>&1 || { echo "x264enc missing" >&2; exit 77; }

runs=(
  "lossless none none"
  "random-nack bernoulli:0.02 nack"
  "random-none bernoulli:0.02 none"
  "bursty-nack gilbert:0.00253,0.25 nack"
  "bursty-none gilbert:0.00253,0.25 none"
  "random-fec bernoulli:0.02 fec"
  "random-both bernoulli:0.02 both"
  "bursty-fec gilbert:0.00253,0.25 fec"
  "bursty-both gilbert:0.00253,0.25 both"
  "light-fec bernoulli:0.005 fec"
  "light-both bernoulli:0.005 both"
)
mkdir -p "$out"
[ $table_only = 1 ] || for r in "${runs[@]}"; do
  set -- $r
  [ -z "$only" ] || [[ "$only" == *",$1,"* ]] || continue
  cut -d' ' -f1-3 /proc/loadavg > "$out/$1.load"
  "$here/rt-eval.py" --matrix loss-random --seed 1 --stacks ours \
    --mode loopback --scale "$scale" --build "$build" --out "$out/$1" \
    --loss "$2" --repair "$3" --key-int-max 300 --jitter-ms 200 \
    --port-base "$port_base" >&2
done

python3 - "$out" "$scale" <<'EOF'
import json, os, re, subprocess, sys
out, scale = sys.argv[1], float(sys.argv[2])
names = ["lossless", "random-nack", "random-none", "bursty-nack",
         "bursty-none", "random-fec", "random-both", "bursty-fec",
         "bursty-both", "light-fec", "light-both"]


def stat(log, key, line=None):
    """@key's guint64 in @log, or in its line starting with @line"""
    text = open(log).read()
    if line is not None:
        text = "\n".join(x for x in text.splitlines() if x.startswith(line))
    m = re.search(rf"(?<![\w-]){re.escape(key)}=\(guint64\)(\d+)", text)
    return int(m.group(1)) if m else None


def last_row(path):
    rows = open(path).read().split()
    head, last = rows[0].split(","), rows[-1].split(",")
    return dict(zip(head, last))


rows = {}
for n in names:
    d = os.path.join(out, n, "loss-random-ours")
    if not os.path.exists(os.path.join(d, "metrics.json")):
        continue                        # not run (yet)
    m = json.load(open(os.path.join(d, "metrics.json")))
    link = last_row(os.path.join(d, "flow0-link.csv"))
    drops, pk = float(link["link_drops"]), float(link["link_packets"])
    rows[n] = dict(
        m=m, load=open(os.path.join(out, n + ".load")).read().strip(),
        wire=100.0 * drops / pk if pk else float("nan"),
        nacks=stat(os.path.join(d, "flow0-recv.log"), "nacks-sent"),
        nacked=stat(os.path.join(d, "flow0-recv.log"), "nacked-packets"),
        rtx=stat(os.path.join(d, "flow0-send.log"), "rtx-sent"),
        rec=stat(os.path.join(d, "flow0-recv.log"), "rtx-recovered"),
        plis=stat(os.path.join(d, "flow0-recv.log"), "plis-sent"),
        losses=stat(os.path.join(d, "flow0-recv.log"), "repair-losses"),
        gave=stat(os.path.join(d, "flow0-recv.log"), "repair-gave-up"),
        unnacked=stat(os.path.join(d, "flow0-recv.log"),
                      "repair-gave-up-unnacked"),
        # another stream on the same ports (a concurrent run on this host)
        foreign=stat(os.path.join(d, "flow0-recv.log"), "peer-changes"),
        rebuilt=stat(os.path.join(d, "flow0-recv.log"), "recovered",
                     "fecdec stats"),
        unrec=stat(os.path.join(d, "flow0-recv.log"), "unrecoverable",
                   "fecdec stats"),
        fec_bytes=stat(os.path.join(d, "flow0-send.log"), "fec-bytes",
                       "fecenc stats"),
        media_bytes=stat(os.path.join(d, "flow0-send.log"), "media-bytes",
                         "fecenc stats"))
ref = rows["lossless"]["m"]["psnr"]
commit = subprocess.run(["git", "-C", out, "rev-parse", "--short", "HEAD"],
                        capture_output=True, text=True).stdout.strip()
print(f"{rows['lossless']['m']['date']} UTC, commit {commit}, "
      f"{rows['lossless']['m']['duration']:g} s per run (scale {scale:g})\n")
print("| run | wire loss % | residual loss % | NACKs (packets) | RTX sent / "
      "recovered | FEC bytes / media % | FEC rebuilt / unrecoverable | "
      "losses / given up (never NACKed) | PLIs | frozen % | "
      "PSNR-Y dB | vs lossless dB | g2g p95 ms | received kbit/s | "
      "load 1/5/15 |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def f(v, d=2):
    return "–" if v is None or v != v else f"{v:.{d}f}"


def i(v):
    return "–" if v is None else str(v)


for n in names:
    if n not in rows:
        continue
    r, m = rows[n], rows[n]["m"]
    tag = " (DISTURBED: foreign stream)" if r["foreign"] else ""
    share = (100.0 * r["fec_bytes"] / r["media_bytes"]
             if r["fec_bytes"] is not None and r["media_bytes"] else None)
    print(f"| {n}{tag} | {f(r['wire'])} | {f(m.get('post_repair_loss_pct'))} | "
          f"{i(r['nacks'])} ({i(r['nacked'])}) | {i(r['rtx'])} / "
          f"{i(r['rec'])} | {f(share, 1)} | {i(r['rebuilt'])} / "
          f"{i(r['unrec'])} | {i(r['losses'])} / {i(r['gave'])} "
          f"({i(r['unnacked'])}) | {i(r['plis'])} | {f(m['freeze_pct'], 1)} | "
          f"{f(m['psnr'], 1)} | {f(m['psnr'] - ref, 1)} | "
          f"{f(m['g2g_p95_ms'], 0)} | {f(m['flows'][0]['recv_kbps'], 0)} | "
          f"{r['load']} |")
EOF
