#!/usr/bin/env python3
"""Plot one mgpu_bench CSV: bench/plot.py RESULTS.csv [-o OUT.png]

One subplot per (primitive, variant): Gkeys/s (n / time) against n on a log2
axis, a line for mgpu and one per anchor (colour), one line style per key
dtype, and in grey the device-to-device copy of the same bytes (memcpy_ms)
as a roofline.  Writes the PNG next to the CSV, with the same stem.
"""
import argparse
import csv
import math
import os
import re
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HEADER = ["primitive", "variant", "dtype", "n", "mgpu_ms", "anchor", "anchor_ms",
          "speedup", "memcpy_ms", "device", "commit"]
STYLES = ["-", "--", ":", "-."]
MARKERS = ["o", "s", "^", "D"]


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [h for h in HEADER if h not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"plot.py: {path}: missing columns {missing}")
        rows = []
        for r in reader:
            try:
                r["n"] = int(r["n"])
                for k in ("mgpu_ms", "anchor_ms", "memcpy_ms"):
                    r[k] = float(r[k])
            except ValueError:
                continue
            rows.append(r)
    return rows


def gkeys(n, ms):
    return n / (ms * 1e-3) / 1e9 if ms > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", help="PNG path (default: the CSV's stem + .png)")
    args = ap.parse_args()

    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"plot.py: {args.csv}: no rows to plot")
    out = args.out or os.path.splitext(args.csv)[0] + ".png"

    stem = os.path.basename(os.path.splitext(args.csv)[0])
    m = re.match(r"(\d{4}-\d{2}-\d{2})", stem)
    date = m.group(1) if m else "?"
    devices = sorted({r["device"] for r in rows})
    commits = sorted({r["commit"] for r in rows})

    panels = OrderedDict()  # (primitive, variant) -> rows
    for r in rows:
        panels.setdefault((r["primitive"], r["variant"]), []).append(r)
    dtypes = list(OrderedDict.fromkeys(r["dtype"] for r in rows))
    impls = ["mgpu"] + list(OrderedDict.fromkeys(r["anchor"] for r in rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    color = {name: colors[i % len(colors)] for i, name in enumerate(impls)}

    npanel = len(panels)
    ncols = min(2, npanel)
    nrows = math.ceil(npanel / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.5 * ncols, 4.3 * nrows), squeeze=False)

    for idx, ((prim, var), prow) in enumerate(panels.items()):
        ax = axes[idx // ncols][idx % ncols]
        top = 0.0          # highest mgpu/anchor point
        copy_lines = []    # drawn after, only if on the same scale
        all_ns = set()
        for di, dt in enumerate(dtypes):
            drows = [r for r in prow if r["dtype"] == dt]
            if not drows:
                continue
            ls = STYLES[di % len(STYLES)]
            mk = MARKERS[di % len(MARKERS)]
            # mgpu and memcpy: one point per n (repeated on each anchor's row)
            per_n = OrderedDict()
            for r in sorted(drows, key=lambda r: r["n"]):
                per_n.setdefault(r["n"], r)
            ns = list(per_n)
            all_ns.update(ns)
            ys = [gkeys(n, per_n[n]["mgpu_ms"]) for n in ns]
            ax.plot(ns, ys, ls, marker=mk, color=color["mgpu"], linewidth=2, label=f"mgpu {dt}")
            top = max([top] + [y for y in ys if y == y])
            copy_lines.append((dt, ls, ns, [gkeys(n, per_n[n]["memcpy_ms"]) for n in ns]))
            for anchor in impls[1:]:
                arows = sorted((r for r in drows if r["anchor"] == anchor), key=lambda r: r["n"])
                if not arows:
                    continue
                ys = [gkeys(r["n"], r["anchor_ms"]) for r in arows]
                ax.plot([r["n"] for r in arows], ys, ls, marker=mk, color=color[anchor],
                        label=f"{anchor} {dt}")
                top = max([top] + [y for y in ys if y == y])
        # The copy of the same bytes is the roofline; when it is far above
        # (sorts) it would flatten the plot, so it is then only quoted.
        off_scale = []
        for dt, ls, ns, ys in copy_lines:
            if top > 0 and max(ys) > 3 * top:
                off_scale.append(f"{dt} {min(ys):.0f}-{max(ys):.0f}")
            else:
                ax.plot(ns, ys, ls, color="0.6", linewidth=1, label=f"memcpy same bytes {dt}")
        ax.set_xscale("log", base=2)
        ns = sorted(all_ns)
        if ns and all(n & (n - 1) == 0 for n in ns):
            ax.set_xticks(ns)
            ax.set_xticklabels([f"$2^{{{n.bit_length() - 1}}}$" for n in ns])
        ax.set_xlabel("n (keys)")
        ax.set_ylabel("Gkeys/s")
        ax.set_ylim(bottom=0)
        title = f"{prim} / {var}"
        if off_scale:
            title += ("\n(memcpy of the same bytes, off scale: " + "; ".join(off_scale) +
                      " Gkeys/s)")
        ax.set_title(title, fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, loc="best", framealpha=0.8)
    for idx in range(npanel, nrows * ncols):
        axes[idx // ncols][idx % ncols].set_visible(False)

    fig.suptitle(f"mgpu vs CUB/Thrust - {', '.join(devices)} - {date} - commit {', '.join(commits)}",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    fig.savefig(out, dpi=80)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
