#!/usr/bin/env bash
# Hardware counters (Nsight Compute) for the first launch of each kernel of
# interest in the tuning sweep, on the GPU machine.  Reports go to $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
          --section WarpStateStats --section SchedulerStats
          --section MemoryWorkloadAnalysis)
profile() { # name regex subset [skip]
  ncu --clock-control none "${sections[@]}" -k "regex:$2" -s "${4:-0}" -c 1 \
    build/mgpu_tune 26 1 "$3" >"$OUT/ncu-$1.txt" 2>&1
  echo "== $1: $(grep -E 'Duration|Memory Throughput|Achieved Occupancy' "$OUT/ncu-$1.txt" | tr -s ' ' | tr '\n' ';')"
}
profile merge_tile '^merge_kernel' merge32
profile merge_partition 'merge_partition_kernel' merge32
profile merge_stream 'merge_stream_kernel' merge32
profile blocksort 'blocksort_kernel' sort
profile sort_pass '^mergesort_pass_kernel' sort 5
