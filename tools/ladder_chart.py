#!/usr/bin/env python3
"""The portability study's rungs on one chart: each rung's GCells/s (from the benchmark) as a
bar, with Nsight Compute's counts of its stepping kernel beneath (instructions a cell-step,
scheduler slots and DRAM throughput used, achieved occupancy: tools/ncu_table.py's summary).

  tools/ladder_chart.py --cells 10246401 --steps 48 --title TEXT --out FILE.svg \\
      "cuda-stream=858:ncu-cuda-stream.csv" "kokkos-tiled=407:ncu-kokkos-tiled.csv" ...

Needs matplotlib (Debian: python3-matplotlib)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_table import launches, summary  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cells", type=int, required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--title", default="")
    parser.add_argument("--out", required=True)
    parser.add_argument("rung", nargs="+", help="LABEL=GCELLS:NCU.csv, fastest-portable first")
    args = parser.parse_args()

    try:
        import matplotlib
    except ImportError:
        sys.exit(f"ladder_chart.py: {sys.executable} has no matplotlib (Debian: apt install "
                 "python3-matplotlib)")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small, diffable files
    import matplotlib.pyplot as plt

    labels, rates, notes = [], [], []
    for rung in args.rung:
        label, rest = rung.split("=", 1)
        rate, path = rest.split(":", 1)
        rows = launches(path)
        if not rows:
            raise SystemExit("ladder_chart: no launches in " + path)
        s = summary(rows, args.cells * args.steps)
        labels.append(label)
        rates.append(float(rate))
        notes.append("%.1f instr/cell-step\nslots used %.0f%%, DRAM %.0f%%\noccupancy %s%%" % (
            s["thread instr / cell-step"], s["scheduler slots used %"], s["DRAM %"],
            s["occupancy % (achieved / theoretical)"].split(" /")[0]))

    fig, ax = plt.subplots(figsize=(1.9 * len(labels) + 1.5, 4.6))
    bars = ax.bar(range(len(labels)), rates, color="#4c72b0")
    for bar, rate, note in zip(bars, rates, notes):
        ax.text(bar.get_x() + bar.get_width() / 2, bar.get_height(), "%.0f" % rate,
                ha="center", va="bottom", fontsize=10)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels([l + "\n\n" + n for l, n in zip(labels, notes)], fontsize=8)
    ax.set_ylabel("GCells/s")
    ax.set_ylim(0, max(rates) * 1.15)
    ax.set_title(args.title, fontsize=10)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(args.out, metadata={"Date": None} if args.out.endswith(".svg") else None)


if __name__ == "__main__":
    main()
