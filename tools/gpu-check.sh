#!/usr/bin/env bash
# The GPU machine's whole check, in one call (device time is scarce):
# build, the spec suite on every backend, compute-sanitizer over the cuda
# specs and the benchmark.  Logs go to $OUT (or ./gpu-out).
#
#   tools/gpu-check.sh [build] [specs] [huge] [memcheck] [racecheck] [setop]
#                      [staged] [ptx] [nocode] [fuzz] [gc] [bench]
#
# With no arguments it does build, specs, memcheck and bench.
# memcheck and racecheck cover every kernel that ships: the specs of every
# primitive, the set operations' and merge's also with the kernel paths
# that send small calls down the kernels large ones take
# (spec/helpers/backends.lua, each_with_paths).  staged runs the one spec
# whose calls take the staged one-tile kernel (sizes the sanitizer passes
# leave out) under memcheck and racecheck; setop runs memcheck and
# racecheck over the set-operation specs alone.  huge runs
# spec/huge_spec.lua (calls of 2^31 - 1 to 2^32 + 3 elements, 8-70 GB each) on the cuda
# backend.  Carry .lua-bundle (see
# ../shared/device/make-lua-bundle.sh); MGPU_COMMIT names the commit in the
# benchmark's CSV.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
[ -f .lua-bundle/env.sh ] && source .lua-bundle/env.sh
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build specs memcheck bench)
want() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
status=0
# the device tool brings back at most 8 files from $OUT: past that, the
# logs travel as one archive (summary.log stays beside it)
pack() {
  local n; n=$(find "$OUT" -type f | wc -l)
  [ "$n" -le 8 ] && return
  tar -czf "$OUT.tgz" -C "$OUT" --exclude=summary.log . &&
    find "$OUT" -mindepth 1 ! -name summary.log -exec rm -rf {} + &&
    mv "$OUT.tgz" "$OUT/logs.tgz"
}
trap pack EXIT
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

# SPECS narrows the suite to some files (the whole suite, cpu and cuda,
# takes longer than one device call allows)
if want specs; then
  t0=$(date +%s)
  # shellcheck disable=SC2086
  $(busted_cmd) ${SPECS:-} >"$OUT/specs.log" 2>&1; rc=$?
  note "specs (cpu + cuda): $(tail -n 1 "$OUT/specs.log") in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
fi

if want huge; then
  t0=$(date +%s)
  MGPU_SPEC_HUGE=1 MGPU_SPEC_BACKENDS=cuda $(busted_cmd) spec/huge_spec.lua \
    >"$OUT/specs-huge.log" 2>&1; rc=$?
  note "huge specs (cuda): $(tail -n 1 "$OUT/specs-huge.log") in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
fi

# The set-operation specs under a sanitizer, on the library in build dir $2:
# by default all but the sizes named 2^2x (they only repeat the kernels,
# slowly); $3, a busted filter option, picks others, and $4 names their log
# and note.
setop_sanitize() {
  local tool=$1 dir=$2 pick=${3:---filter-out=2^2}
  local name=${4:-setop-$dir} log t0 rc
  log="$OUT/$tool-$name.log"
  t0=$(date +%s)
  MGPU_SPEC_BACKENDS=cuda timeout "${SANITIZER_TIMEOUT:-300}" \
    compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
    $(busted_cmd) --cpath="$dir/?.so" "$pick" spec/setop_spec.lua \
    >"$log" 2>&1; rc=$?
  note "$tool over the $name specs: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1); specs: $(grep -E 'passed, ' "$log" | tail -1) in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
}

for tool in memcheck racecheck; do
  want $tool || continue
  t0=$(date +%s)
  # racecheck is ~10x slower than memcheck; its specs can be narrowed to
  # the files whose kernels share memory (RACECHECK_SPECS)
  specs="spec/merge_spec.lua spec/mergesort_spec.lua spec/sort_spec.lua spec/segsort_spec.lua spec/locality_sort_spec.lua spec/array_spec.lua spec/errors_spec.lua spec/bulk_spec.lua spec/interval_spec.lua spec/hostile_spec.lua spec/search_spec.lua spec/keyed_spec.lua"
  # and it leaves out the 10^5-10^6 sizes, which only repeat kernels that
  # the boundary sizes reach
  big=()
  if [ "$tool" = racecheck ]; then
    specs=${RACECHECK_SPECS:-$specs}
    big=(--filter-out="10^6" --filter-out="10^5" --filter-out="40 random")
  fi
  # shellcheck disable=SC2046,SC2086
  MGPU_SPEC_BACKENDS=cuda timeout "${SANITIZER_TIMEOUT:-300}" \
    compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
    $(busted_cmd) "${big[@]}" $specs >"$OUT/$tool.log" 2>&1; rc=$?
  note "$tool over the cuda specs: exit $rc, $(grep -c 'Invalid\|Race\|Hazard' "$OUT/$tool.log") reports; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1); specs: $(grep -E 'passed, ' "$OUT/$tool.log" | tail -1) in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
  setop_sanitize "$tool" build
done

# (a tool's own step above already ran these)
if want setop; then
  for tool in memcheck racecheck; do
    want $tool || setop_sanitize "$tool" build
  done
fi

if want staged; then
  for tool in memcheck racecheck; do
    setop_sanitize "$tool" build "--filter=the staged tile" staged
  done
fi

# The paths of older GPUs, on this one: a build of PTX only (compute_75 by
# default; ARCH_PTX=80 for Ampere's path), which the driver compiles for
# the GPU at hand, so that the specs run the code an older GPU would
# (sm75: barriers kept by shared atomics; sm80: hardware barriers; both
# load tiles warp by warp, launch without dependent launches) on a Hopper,
# under memcheck and racecheck too.  The context must report that path.
if want ptx; then
  t0=$(date +%s)
  arch=${ARCH_PTX:-75}
  path=sm$arch; [ "$arch" -ge 90 ] && path=sm90
  dir=build-ptx$arch
  if cmake -S . -B $dir -DCMAKE_BUILD_TYPE=Release -DMGPU_WERROR=ON \
       -DMGPU_CUDA_ARCHS="${arch}-virtual" >"$OUT/build-ptx$arch.log" 2>&1 &&
     cmake --build $dir -j"$(nproc)" >>"$OUT/build-ptx$arch.log" 2>&1; then
    MGPU_SPEC_BACKENDS=cuda MGPU_SPEC_EXPECT_PATH=$path \
      $(busted_cmd) --cpath="$dir/?.so" >"$OUT/specs-ptx$arch.log" 2>&1 || status=1
    note "specs on compute_$arch PTX ($path): $(tail -n 1 "$OUT/specs-ptx$arch.log") in $(( $(date +%s) - t0 )) s"
    for tool in memcheck racecheck; do
      t0=$(date +%s)
      MGPU_SPEC_BACKENDS=cuda timeout "${SANITIZER_TIMEOUT:-300}" \
        compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 \
        $(busted_cmd) --cpath="$dir/?.so" --filter-out="10^6" --filter-out="10^5" \
        --filter-out="2^2" --filter-out="40 random" \
        spec/merge_spec.lua spec/mergesort_spec.lua spec/sort_spec.lua \
        spec/segsort_spec.lua spec/locality_sort_spec.lua spec/setop_spec.lua \
        >"$OUT/$tool-ptx$arch.log" 2>&1; rc=$?
      note "$tool over the compute_$arch build: exit $rc; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-ptx$arch.log" | tail -1); specs: $(grep -E 'passed, ' "$OUT/$tool-ptx$arch.log" | tail -1) in $(( $(date +%s) - t0 )) s"
      [ $rc -ne 0 ] && status=1
    done
  else
    note "compute_$arch build FAILED"; tail -30 "$OUT/build-ptx$arch.log"; status=1
  fi
fi

# A build without code for this GPU must fail at context creation, with
# an error naming the GPU's architecture and the ones built.  Forcing the
# driver to compile PTX (CUDA_FORCE_PTX_JIT) leaves the default build only
# compute_100's, which no Hopper can run.
if want nocode; then
  t0=$(date +%s)
  CUDA_FORCE_PTX_JIT=1 MGPU_SPEC_NO_CODE=1 MGPU_SPEC_BACKENDS=cuda \
    $(busted_cmd) --filter="no code" spec/context_spec.lua \
    >"$OUT/specs-nocode.log" 2>&1 || status=1
  note "a GPU without code (CUDA_FORCE_PTX_JIT=1): $(tail -n 1 "$OUT/specs-nocode.log") in $(( $(date +%s) - t0 )) s"
fi

# the module as built, for the Lua scripts below
export LUA_PATH="lua/?.lua;lua/?/init.lua;spec/?.lua;${LUA_PATH:-;}"
export LUA_CPATH="build/?.so;${LUA_CPATH:-;}"

if want fuzz; then
  t0=$(date +%s)
  timeout $(( ${FUZZ_SECONDS:-60} + 240 )) \
    compute-sanitizer --tool memcheck --error-exitcode 9 --print-limit 20 \
    lua5.4 tools/fuzz.lua --device cuda --seconds "${FUZZ_SECONDS:-60}" \
    >"$OUT/fuzz-memcheck.log" 2>&1; rc=$?
  note "fuzz (cuda, memcheck): exit $rc; $(grep -E 'ERROR SUMMARY' "$OUT/fuzz-memcheck.log" | tail -1); $(grep -E '^fuzz: [0-9]+ calls' "$OUT/fuzz-memcheck.log" | tail -1) in $(( $(date +%s) - t0 )) s"
  [ $rc -ne 0 ] && status=1
fi

if want gc; then
  t0=$(date +%s)
  lua5.4 bench/gc.lua --device cuda --sizes "${GC_SIZES:-24,26}" \
    --csv "$OUT/gc-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-').csv" \
    >"$OUT/gc.log" 2>&1 || status=1
  note "gc: $(tail -n 1 "$OUT/gc.log") in $(( $(date +%s) - t0 )) s"
fi

if want bench; then
  mkdir -p "$OUT/results"
  bench/run.sh build "$OUT/results" >"$OUT/bench.log" 2>&1 || status=1
  note "bench: exit status recorded above; table in bench.log"
fi
exit $status
