#!/usr/bin/env bash
# The GPU machine's whole check, in one call (device time is scarce):
# build, the spec suite on every backend, compute-sanitizer over the cuda
# specs, the tuning sweep and the benchmark.  Logs go to $OUT (or ./gpu-out).
#
#   tools/gpu-check.sh [build] [specs] [memcheck] [racecheck] [tune] [bench]
#
# With no arguments it does them all.  Carry .lua-bundle (see
# ../shared/device/make-lua-bundle.sh); MGPU_COMMIT names the commit in the
# benchmark's CSV.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
[ -f .lua-bundle/env.sh ] && source .lua-bundle/env.sh
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build specs memcheck tune bench)
want() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
status=0
note() { echo "== $*" | tee -a "$OUT/summary.log"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader \
  | tee -a "$OUT/summary.log"

if want build; then
  t0=$(date +%s)
  if cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMGPU_WERROR=ON \
       -DMGPU_BUILD_BENCH=ON >"$OUT/build.log" 2>&1 &&
     cmake --build build -j"$(nproc)" >>"$OUT/build.log" 2>&1; then
    note "build ok in $(( $(date +%s) - t0 )) s"
  else
    note "build FAILED"; tail -30 "$OUT/build.log"; exit 1
  fi
fi

# busted under lua5.4, whichever way it is installed
busted_cmd() {
  local b; b=$(command -v busted)
  if [ -f "$(dirname "$b")/busted.lua" ]; then
    echo "$(dirname "$b")/lua5.4 $(dirname "$b")/busted.lua"
  else
    echo "lua5.4 $b"
  fi
}

if want specs; then
  t0=$(date +%s)
  $(busted_cmd) >"$OUT/specs.log" 2>&1; rc=$?
  note "specs (cpu + cuda): $(tail -n 1 "$OUT/specs.log") in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
fi

for tool in memcheck racecheck; do
  want $tool || continue
  t0=$(date +%s)
  # racecheck is ~10x slower than memcheck; its specs can be narrowed to
  # the files whose kernels share memory (RACECHECK_SPECS)
  specs="spec/merge_spec.lua spec/mergesort_spec.lua spec/array_spec.lua spec/errors_spec.lua spec/bulk_spec.lua spec/interval_spec.lua"
  [ "$tool" = racecheck ] && specs=${RACECHECK_SPECS:-$specs}
  # shellcheck disable=SC2046,SC2086
  MGPU_SPEC_BACKENDS=cuda timeout "${SANITIZER_TIMEOUT:-300}" \
    compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
    $(busted_cmd) $specs >"$OUT/$tool.log" 2>&1; rc=$?
  note "$tool over the cuda specs: exit $rc, $(grep -c 'Invalid\|Race\|Hazard' "$OUT/$tool.log") reports; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1); specs: $(grep -E 'passed, ' "$OUT/$tool.log" | tail -1) in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
done

if want tune; then
  build/mgpu_tune "${TUNE_LOG2:-26}" "${TUNE_REPS:-10}" >"$OUT/tune.log" 2>&1 || status=1
  note "tune: $(tail -n 1 "$OUT/tune.log")"
fi

if want bench; then
  mkdir -p "$OUT/results"
  bench/run.sh build "$OUT/results" >"$OUT/bench.log" 2>&1 || status=1
  note "bench: exit status recorded above; table in bench.log"
fi
exit $status
