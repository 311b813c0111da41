#!/usr/bin/python3
"""Plot residual media loss vs FEC overhead from bench-fec's CSV.

usage: plot-fec.py RESULTS.csv OUT.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "xor": ("tab:blue", "o", "XOR (n = 14 .. 2)"),
    "rs": ("tab:red", "s", "Reed-Solomon k = 10, m = 1 .. 5"),
    "rs k=20": ("darkred", "D", "Reed-Solomon k = 20, m = 2"),
    "xor-2d": ("tab:green", "^", "2-D XOR (n x 4)"),
    "ulpfec": ("tab:gray", "x", "stock rtpulpfecenc/dec"),
}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    models = ["bernoulli", "gilbert-elliott"]
    losses = sorted({int(r["loss_pct"]) for r in rows})
    fig, axes = plt.subplots(len(models), len(losses),
                             figsize=(4 * len(losses), 3.6 * len(models)),
                             squeeze=False)
    for i, model in enumerate(models):
        for j, loss in enumerate(losses):
            ax = axes[i][j]
            sel = [r for r in rows
                   if r["model"] == model and int(r["loss_pct"]) == loss]
            if not sel:
                ax.set_visible(False)
                continue
            series = defaultdict(list)
            base = None
            for r in sel:
                if r["scheme"] == "none":
                    base = float(r["residual_pct"])
                    continue
                key = r["scheme"]
                if key == "rs" and r["param"].startswith("k=20"):
                    key = "rs k=20"
                series[key].append((float(r["overhead_pkt_pct"]),
                                            float(r["residual_pct"])))
            for scheme, pts in series.items():
                pts.sort()
                color, marker, label = STYLE.get(scheme,
                                                 ("black", ".", scheme))
                ax.plot([p[0] for p in pts],
                        [max(p[1], 0.01) for p in pts],
                        color=color, marker=marker, label=label)
            if base is not None:
                ax.axhline(max(base, 0.01), color="black", ls="--", lw=0.8,
                           label="no FEC")
            ax.set_yscale("log")
            ax.set_ylim(0.008, 20)
            ax.set_title(f"{model}, {loss} % loss"
                         + (" (mean burst 3)" if model != "bernoulli" else ""),
                         fontsize=9)
            ax.set_xlabel("FEC overhead (packets, %)")
            ax.set_ylabel("residual media loss (%)")
            ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Residual loss vs overhead (0.01 % = none lost)", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
