#!/usr/bin/env python3
"""Plot bench/group_sort.lua's CSV: bench/plot_group.py RESULTS-group.csv

One bar group per row (keys or pairs, mergesort or sort, n, GPUs): the
same sort of the whole array on one GPU, the group's distributed sort, and
the group's local sorts alone (what the group call spends beyond them is
sampling, exchange and merge), in ms.  Rows "keys"/"pairs" are
mgpu.mergesort, "keys-sort"/"pairs-sort" mgpu.sort.
Writes the PNG next to the CSV, with the same stem.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    path = sys.argv[1]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    labels, one, group, local = [], [], [], []
    for r in rows:
        labels.append("%s 2^%d\n%s GPUs, %.2fx" % (
            r["what"], int(r["n"]).bit_length() - 1, r["gpus"],
            float(r["speedup"] or "nan")))
        one.append(float(r["one_gpu_ms"] or "nan"))
        group.append(float(r["group_ms"]))
        local.append(float(r["local_sort_ms"]))
    x = range(len(rows))
    w = 0.27
    fig, ax = plt.subplots(figsize=(1.2 * len(rows) + 2, 4.5))
    ax.bar([i - w for i in x], one, w, label="the same sort, one GPU")
    ax.bar(list(x), group, w, label="group")
    ax.bar([i + w for i in x], local, w, label="group's local sorts alone")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ms")
    ax.set_yscale("log")
    commits = []
    for r in rows:
        if r["commit"] not in commits:
            commits.append(r["commit"])
    ax.set_title("%s: distributed sorts of i32 (-sort: mgpu.sort, else mgpu.mergesort), %s" % (
        rows[0]["device"], ", ".join(commits)))
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.splitext(path)[0] + ".png"
    fig.savefig(out, dpi=80)
    print("plot:", out)


if __name__ == "__main__":
    main()
