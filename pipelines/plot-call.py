#!/usr/bin/python3
"""Plot a call log (rtpcc-call or rtpcc-sim CSV): capacity vs target vs
received rate, queue delay and RTT, loss. Columns it does not find are
skipped, so both writers' logs work."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(src):
    title = ""
    lines = []
    with open(src) as f:
        for line in f:
            if line.startswith("#"):
                title = title or line[1:].strip()
            else:
                lines.append(line)
    rows = [{k: float(v) for k, v in r.items() if v not in (None, "")}
            for r in csv.DictReader(lines)]
    return title, rows


def col(rows, name):
    return [r.get(name) for r in rows] if rows and name in rows[0] else None


def main(src, dst):
    try:
        title, rows = load(src)
    except (OSError, ValueError) as e:
        print(f"{src}: cannot read the log: {e}", file=sys.stderr)
        return 1
    if not rows:
        print(f"{src}: no samples", file=sys.stderr)
        return 1
    t = col(rows, "time_s")
    fig, (a1, a2, a3) = plt.subplots(3, 1, sharex=True, figsize=(11, 8.5),
                                     gridspec_kw={"height_ratios": [3, 2, 1.3]})
    series = [("capacity_kbps", "link capacity", dict(color="k", drawstyle="steps-post")),
              ("target_kbps", "target", dict(color="tab:blue")),
              ("encoder_kbps", "encoder bitrate", dict(color="tab:cyan", ls="--")),
              ("recv_kbps", "received", dict(color="tab:orange", alpha=0.8))]
    for name, label, kw in series:
        y = col(rows, name)
        if y:
            a1.plot(t, y, label=label, **kw)
    br = col(rows, "breaker")
    if br:
        on = [ti for ti, b in zip(t, br) if b]
        for ti in on:
            a1.axvspan(ti - 0.2, ti, color="tab:red", alpha=0.15, lw=0)
    a1.set_ylabel("kbit/s")
    a1.legend(loc="upper right", fontsize=8)
    a1.set_title(title, fontsize=9)
    q = col(rows, "queue_delay_ms")
    if q:
        a2.plot(t, q, color="tab:red", label="queue delay")
    rtt = col(rows, "rtt_ms")
    if rtt:
        a2.plot(t, rtt, color="tab:purple", alpha=0.7, label="RTT (sender's)")
    a2.set_ylabel("ms")
    a2.legend(loc="upper right", fontsize=8)
    loss = col(rows, "loss_pct")
    if loss:
        a3.plot(t, loss, color="tab:brown", label="loss at the bottleneck")
    a3.set_ylabel("loss %")
    a3.set_xlabel("time (s)")
    a3.legend(loc="upper right", fontsize=8)
    for a in (a1, a2, a3):
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(dst, dpi=100)
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("usage: plot-call.py CALL.csv OUT.png", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
