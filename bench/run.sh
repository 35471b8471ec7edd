#!/usr/bin/env bash
# bench/run.sh BUILD_DIR [OUT_DIR]
#
# Runs the CUB/Thrust comparison (BUILD_DIR/mgpu_bench, extra arguments from
# $MGPU_BENCH_ARGS), then the Lua latency benchmark (when lua5.4 is on PATH),
# then bench/anchors.py (PyTorch and CuPy, when python3 imports either), then
# the plot.  OUT_DIR defaults to bench/results.  The exit status is the
# benchmark's (non-zero on a mismatch or an error), else the first failure.
set -uo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: bench/run.sh BUILD_DIR [OUT_DIR]" >&2
  exit 2
fi
abspath() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
BUILD=$(abspath "$1")
OUT=$(abspath "${2:-bench/results}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1

if [ -z "${MGPU_COMMIT:-}" ]; then
  if c=$(git rev-parse --short HEAD 2>/dev/null); then
    if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then c="$c-dirty"; fi
    MGPU_COMMIT=$c
  else
    MGPU_COMMIT=unknown
  fi
fi
export MGPU_COMMIT
mkdir -p "$OUT" || exit 1

BENCH="$BUILD/mgpu_bench"
[ -x "$BENCH" ] || BENCH="$BUILD/bench/mgpu_bench"
if [ ! -x "$BENCH" ]; then
  echo "run.sh: no mgpu_bench in $BUILD (configure with -DMGPU_BUILD_BENCH=ON)" >&2
  exit 1
fi

status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# ---- 1. mgpu vs CUB/Thrust ----
# shellcheck disable=SC2086  # MGPU_BENCH_ARGS is a list of words
"$BENCH" --out "$OUT" ${MGPU_BENCH_ARGS:-} 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  echo "run.sh: mgpu_bench exited with status $rc" >&2
  status=$rc
fi
csv=$(sed -n 's/^csv: //p' "$log" | tail -n 1)

# ---- 2. Lua latency ----
if command -v lua5.4 >/dev/null 2>&1; then
  if ! LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH="$BUILD/?.so;;" \
      lua5.4 bench/latency.lua "$OUT"; then
    echo "run.sh: latency.lua failed" >&2
    [ "$status" -ne 0 ] || status=1
  fi
else
  echo "run.sh: note: lua5.4 not found; skipping the Lua latency benchmark"
fi

# ---- 2b. PyTorch and CuPy anchors (when python3 can import either) ----
if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import importlib.util as u, sys; sys.exit(not (u.find_spec("torch") or u.find_spec("cupy")))' 2>/dev/null; then
  if ! python3 bench/anchors.py --out "$OUT"; then
    echo "run.sh: anchors.py failed" >&2
    [ "$status" -ne 0 ] || status=1
  fi
fi

# ---- 3. plot ----
if [ -n "$csv" ] && [ -f "$csv" ]; then
  if command -v python3 >/dev/null 2>&1; then
    if ! python3 bench/plot.py "$csv"; then
      echo "run.sh: plot.py failed" >&2
      [ "$status" -ne 0 ] || status=1
    fi
  else
    echo "run.sh: note: python3 not found; no plot"
  fi
else
  echo "run.sh: note: mgpu_bench wrote no CSV; no plot"
fi
exit "$status"
