#!/usr/bin/env bash
# Builds the cpu-only Lua module under AddressSanitizer and
# UndefinedBehaviorSanitizer, for tools/fuzz.lua:
#
#   tools/asan-build.sh [SRC_DIR] [BUILD_DIR]     -> BUILD_DIR/mgpu/core.so
#
# SRC_DIR defaults to this repository, BUILD_DIR to SRC_DIR/build-asan
# (git-ignored by /build-*/).  No CUDA: the sanitizers see host code only,
# and a C-only build takes seconds on two cores.
#
# lua5.4 itself is not instrumented, so the module needs the ASan runtime
# preloaded when it runs:
#   LD_PRELOAD=$(gcc -print-file-name=libasan.so) lua5.4 ...
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "${1:-$here/..}" && pwd)
build=${2:-$src/build-asan}
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cflags="$san -g -O1"
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S "$src" -B "$build" -G "Unix Makefiles" \
  -DMGPU_WITH_CUDA=OFF \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS="$cflags" \
  -DCMAKE_MODULE_LINKER_FLAGS="$san" \
  -DCMAKE_SHARED_LINKER_FLAGS="$san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" \
  -DMGPU_BUILD_CTESTS=ON >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null
echo "asan-build: $build/mgpu/core.so"
