#!/usr/bin/env bash
# Nsight Compute over one bench case per primitive of issues 3 and 4, on the
# GPU machine, after a bench build in build/.  Reports go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
B=build/mgpu_bench
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
          --section WarpStateStats --section SchedulerStats
          --section MemoryWorkloadAnalysis --section SourceCounters)
dur() { # name case
  ncu --clock-control none --metrics gpu__time_duration.sum --csv \
    $B --only "$2" --sizes 26 --dtypes i32 --reps 1 --warmup 0 >"$OUT/dur-$1.csv" 2>&1
}
full() { # name case kernel-regex count
  ncu --clock-control none "${sections[@]}" -k "regex:$3" -c "${4:-1}" \
    $B --only "$2" --sizes 26 --dtypes i32 --reps 1 --warmup 0 >"$OUT/ncu-$1.txt" 2>&1
}
for c in "$@"; do eval "$c"; done
