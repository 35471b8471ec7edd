#!/usr/bin/env python3
"""bench/anchors.py [--out DIR] [--sizes 20,24,26,28] [--dtypes i32,i64]

Times the PyTorch and CuPy calls that do what mgpu's scan, reduce,
sorted_search, unique, compact and sort (pairs) do, on CUDA device 0, the way mgpu_bench
times its anchors: inputs made untimed, L2 flushed (a memset over twice its
size) before each rep, CUDA events around the one call, 3 warmup reps, the
median of 15.  Writes OUT/<YYYY-MM-DD>-<device>-anchors.csv with
mgpu_bench's columns; mgpu_ms and speedup are empty (join on primitive,
variant, dtype and n to compare), memcpy_ms is a device copy of n keys.
Either library may be missing; with neither, nothing is written.
"""
import argparse
import datetime
import os
import re
import statistics
import sys

try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

WARMUP, REPS = 3, 15
COLUMNS = "primitive,variant,dtype,n,mgpu_ms,anchor,anchor_ms,speedup,memcpy_ms,device,commit"


class TorchTimer:
    def __init__(self):
        props = torch.cuda.get_device_properties(0)
        l2 = getattr(props, "L2_cache_size", 0) or 64 << 20
        self.flush_buf = torch.empty(2 * l2, dtype=torch.uint8, device="cuda")
        self.name = props.name

    def time(self, fn):
        """median ms of fn() over REPS, after WARMUP, L2 flushed before each"""
        times = []
        for rep in range(WARMUP + REPS):
            self.flush_buf.zero_()
            start = torch.cuda.Event(enable_timing=True)
            stop = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            if rep >= WARMUP:
                times.append(start.elapsed_time(stop))
        return statistics.median(times)


class CupyTimer:
    def __init__(self):
        l2 = cupy.cuda.runtime.getDeviceProperties(0).get("l2CacheSize", 0) or 64 << 20
        self.flush_buf = cupy.empty(2 * l2, dtype=cupy.uint8)

    def time(self, fn):
        times = []
        for rep in range(WARMUP + REPS):
            self.flush_buf.fill(0)
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            if rep >= WARMUP:
                times.append(cupy.cuda.get_elapsed_time(start, stop))
        return statistics.median(times)


def torch_rows(timer, dt, n):
    """(primitive, variant, anchor, ms) for the torch calls at n keys"""
    tdt = {"i32": torch.int32, "i64": torch.int64}[dt]
    info = torch.iinfo(tdt)
    gen = torch.Generator(device="cuda").manual_seed(n)

    def rand(count):
        return torch.randint(info.min, info.max, (count,), dtype=tdt, device="cuda", generator=gen)

    rows = []
    # scan and reduce: small keys, so the sums do not wrap (as mgpu_bench)
    x = rand(n) & 255
    y = torch.empty_like(x)
    rows.append(("scan", "add", "torch.cumsum",
                 timer.time(lambda: torch.cumsum(x, 0, dtype=tdt, out=y))))
    # the sum reaches the host, as mgpu_reduce's does
    rows.append(("reduce", "add", "torch.sum",
                 timer.time(lambda: torch.sum(x, dtype=tdt).item())))
    del x, y
    # sorted_search: n keys in all, n/2 sorted needles in n/2 sorted haystack
    hay = torch.sort(rand(n // 2)).values
    needles = torch.sort(rand(n // 2)).values
    rows.append(("sorted_search", "left", "torch.searchsorted",
                 timer.time(lambda: torch.searchsorted(hay, needles, out_int32=True))))
    del hay, needles
    # unique: runs of ~8 equal keys (iota >> 3, as mgpu_bench)
    runs = torch.arange(n, dtype=tdt, device="cuda") >> 3
    rows.append(("unique", "keys", "torch.unique_consecutive",
                 timer.time(lambda: torch.unique_consecutive(runs))))
    rows.append(("unique", "counts", "torch.unique_consecutive(return_counts)",
                 timer.time(lambda: torch.unique_consecutive(runs, return_counts=True))))
    del runs
    # compact: two thirds kept
    data = rand(n)
    mask = (torch.arange(n, device="cuda") % 3) != 0
    rows.append(("compact", "two_thirds", "torch.masked_select",
                 timer.time(lambda: torch.masked_select(data, mask))))
    del data, mask
    # sort: random keys, stable, with their positions (int64 indices); mgpu's
    # match is sort/pairs (keys with i32 values, both moved)
    keys = rand(n)
    rows.append(("sort", "pairs", "torch.sort(stable)",
                 timer.time(lambda: torch.sort(keys, stable=True))))
    del keys
    return rows


def torch_copy_ms(timer, dt, n):
    tdt = {"i32": torch.int32, "i64": torch.int64}[dt]
    src = torch.ones(n, dtype=tdt, device="cuda")
    dst = torch.empty_like(src)
    return timer.time(lambda: dst.copy_(src))


def cupy_rows(timer, dt, n):
    cdt = {"i32": cupy.int32, "i64": cupy.int64}[dt]
    info = cupy.iinfo(cdt)
    rs = cupy.random.RandomState(n)

    def rand(count):
        return rs.randint(info.min, info.max, size=count, dtype=cdt)

    rows = []
    x = rand(n) & 255
    rows.append(("scan", "add", "cupy.cumsum", timer.time(lambda: cupy.cumsum(x, dtype=cdt))))
    del x
    hay = cupy.sort(rand(n // 2))
    needles = cupy.sort(rand(n // 2))
    rows.append(("sorted_search", "left", "cupy.searchsorted",
                 timer.time(lambda: cupy.searchsorted(hay, needles, side="left"))))
    del hay, needles
    return rows


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--sizes", default="20,24,26,28", help="log2 of n")
    ap.add_argument("--dtypes", default="i32,i64")
    args = ap.parse_args()
    if torch is None and cupy is None:
        print("anchors.py: neither torch (with CUDA) nor cupy; nothing to do")
        return 0
    sizes = [1 << int(s) for s in args.sizes.split(",")]
    dtypes = args.dtypes.split(",")
    commit = os.environ.get("MGPU_COMMIT") or "unknown"

    ttimer = TorchTimer() if torch is not None else None
    ctimer = CupyTimer() if cupy is not None else None
    if ttimer is not None:
        device = ttimer.name
    else:
        device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    device_col = device.replace(",", " ").replace('"', " ")

    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "%s-%s-anchors.csv" % (
        datetime.date.today().isoformat(), sanitize(device)))
    with open(path, "w") as f:
        f.write(COLUMNS + "\n")
        for dt in dtypes:
            for n in sizes:
                rows, copy_ms = [], None
                try:
                    if ttimer is not None:
                        rows += torch_rows(ttimer, dt, n)
                        copy_ms = torch_copy_ms(ttimer, dt, n)
                    if ctimer is not None:
                        rows += cupy_rows(ctimer, dt, n)
                except MemoryError as e:  # cupy's OutOfMemoryError is one
                    print("anchors.py: skip %s n=%d: %s" % (dt, n, e))
                    continue
                except RuntimeError as e:  # torch's out of memory
                    if "out of memory" not in str(e):
                        raise
                    print("anchors.py: skip %s n=%d: %s" % (dt, n, e))
                    continue
                finally:
                    if torch is not None:
                        torch.cuda.empty_cache()
                    if cupy is not None:
                        cupy.get_default_memory_pool().free_all_blocks()
                copy_col = "%.6f" % copy_ms if copy_ms is not None else ""
                for prim, variant, anchor, ms in rows:
                    f.write("%s,%s,%s,%d,,%s,%.6f,,%s,%s,%s\n" % (
                        prim, variant, dt, n, anchor, ms, copy_col, device_col, commit))
                    print("%-14s %-10s %-4s n=%-10d %-40s %10.4f ms" % (
                        prim, variant, dt, n, anchor, ms))
                f.flush()
    print("csv: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
