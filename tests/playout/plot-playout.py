#!/usr/bin/python3
"""Plot bench-playout's CSV: mean playout delay vs late loss per trace.

Usage: plot-playout.py CSV PNG
"""
import csv
import sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def pareto(points):
    """Points not beaten on both axes (lower delay and lower loss)."""
    front, best = [], float("inf")
    for late, delay in sorted(points):
        if delay < best:
            front.append((late, delay))
            best = delay
    return front


def main():
    rows = defaultdict(lambda: defaultdict(list))
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            rows[r["trace"]][r["method"]].append(
                (float(r["late_pct"]), float(r["mean_delay_ms"]), r["param"]))
    traces = list(rows)
    cols = 2
    nrows = (len(traces) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(11, 4.2 * nrows),
                             squeeze=False)
    axes = [a for r in axes for a in r]
    for ax, t in zip(axes, traces):
        m = rows[t]
        o = sorted(m["oracle"])
        ax.plot([p[0] for p in o], [p[1] for p in o], "k--", label="oracle")
        pct = [(p[0], p[1]) for p in m["ours-percentile"]]
        ax.scatter([p[0] for p in pct], [p[1] for p in pct], s=5,
                   color="tab:green", alpha=0.2)
        frp = pareto(pct)
        ax.plot([p[0] for p in frp], [p[1] for p in frp], ".-",
                color="tab:green", alpha=0.7,
                label="percentile estimator (late-target 0, front)")
        ours = [(p[0], p[1]) for p in m["ours"]]
        ax.scatter([p[0] for p in ours], [p[1] for p in ours], s=6,
                   color="tab:blue", alpha=0.3)
        fr = pareto(ours)
        ax.plot([p[0] for p in fr], [p[1] for p in fr], "o-",
                color="tab:blue", label="playoutbuffer (controller sweep, front)")
        for p in m["ours-default"]:
            ax.plot([p[0]], [p[1]], "*", color="tab:blue", markersize=14,
                    markeredgecolor="k", label="playoutbuffer defaults")
        jb = [p for p in m["rtpjitterbuffer"] if p[0] < 100]
        jb.sort(key=lambda p: int(p[2]))
        ax.plot([p[0] for p in jb], [p[1] for p in jb], "s-",
                color="tab:red", label="rtpjitterbuffer (latency)")
        for p in jb:
            if int(p[2]) in (5, 8, 10, 15, 20, 25, 30, 40, 50, 60):
                ax.annotate(p[2], (p[0], p[1]), fontsize=7,
                            color="tab:red")
        ax.axvline(1.0, color="grey", lw=0.8)
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xlim(0, 10)
        # zoom on the fronts (and the oracle at <= 1 %): the
        # rtpjitterbuffer points at large latency leave the plot upwards
        top = max([p[1] for p in fr] + [p[1] for p in frp]
                  + [p[1] for p in o if p[0] <= 1.0])
        low = min([p[1] for p in fr] + [p[1] for p in jb])
        ax.set_ylim(0.8 * low, min(top * 1.15, 500))
        ax.set_title(t)
        ax.set_xlabel("late loss (%)")
        ax.set_ylabel("mean playout delay, send to play (ms)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
