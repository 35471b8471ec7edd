#!/usr/bin/env bash
# `make test`: the specs on every backend of the build, then the cpu specs
# again on an ASan+UBSan build of the module (tools/asan-build.sh), then the
# binding's fuzzer for FUZZ_SECONDS (default 60; 0 skips it).  Ends with one
# line `N passed, N failed[, N skipped]` over all three: the fuzzer counts
# as one test.
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0

# Adds the counts of a summary line to the totals; a run that printed none
# (a crash) counts as one failure.
count() {
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
  if [ -z "$line" ]; then
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + $(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")))
  failed=$((failed + $(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")))
  if grep -q skipped <<<"$line"; then
    skipped=$((skipped + $(sed -E 's/.* ([0-9]+) skipped.*/\1/' <<<"$line")))
  fi
}

log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

echo "== specs"
tools/busted.sh 2>&1 | tee "$log/specs"
count "$log/specs"

echo "== specs on the ASan+UBSan build (cpu)"
if tools/asan-build.sh . build-asan >"$log/asan-build" 2>&1; then
  LD_PRELOAD=$(gcc -print-file-name=libasan.so) \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  MGPU_SPEC_BACKENDS=cpu \
    tools/busted.sh --cpath='build-asan/?.so' 2>&1 | tee "$log/asan"
  count "$log/asan"
else
  cat "$log/asan-build"
  failed=$((failed + 1))
fi

if [ "${FUZZ_SECONDS:-60}" != 0 ]; then
  echo "== fuzzer"
  if tools/fuzz.sh "${FUZZ_SECONDS:-60}" >"$log/fuzz" 2>&1; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  tail -n 15 "$log/fuzz"
fi

line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped"
echo "$line"
[ "$failed" -eq 0 ]
