#!/usr/bin/python3
"""Plot an rtpcc-call CSV: link capacity vs send/receive rate, queue delay, drops."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    rows = []
    title = ""
    with open(src) as f:
        lines = [l for l in f if not (l.startswith("#") and (title := title or l[1:].strip()) is not None)]
    for r in csv.DictReader(lines):
        rows.append({k: float(v) for k, v in r.items()})
    if not rows:
        print(f"{src}: no samples", file=sys.stderr)
        return 1
    t = [r["time_s"] for r in rows]
    fig, (a1, a2, a3) = plt.subplots(3, 1, sharex=True, figsize=(10, 8))
    a1.step(t, [r["capacity_kbps"] for r in rows], where="post", label="link capacity", color="k")
    a1.plot(t, [r["send_kbps"] for r in rows], label="sent")
    a1.plot(t, [r["recv_kbps"] for r in rows], label="received")
    a1.set_ylabel("kbit/s")
    a1.legend(loc="upper right")
    a1.set_title(title, fontsize=9)
    a2.plot(t, [r["queue_delay_ms"] for r in rows], color="tab:red")
    a2.set_ylabel("queue delay (ms)")
    drops = [r["queue_drops"] + r["loss_drops"] for r in rows]
    a3.plot(t, [b - a for a, b in zip([0.0] + drops[:-1], drops)], color="tab:purple", label="drops/s")
    a3.plot(t, [r["frames"] for r in rows], color="tab:green", label="decoded fps")
    a3.set_ylabel("per second")
    a3.set_xlabel("time (s)")
    a3.legend(loc="upper right")
    for a in (a1, a2, a3):
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
