#!/usr/bin/env bash
# Fuzzes the Lua binding under ASan+UBSan:
#
#   tools/fuzz.sh [seconds] [fuzz.lua options: --seed S --mode M --only ...]
#
# Builds the sanitized cpu-only module (tools/asan-build.sh; incremental),
# then runs tools/fuzz.lua for `seconds` (default 60).  Exit status 0 when
# the run ends with no crash, no sanitizer report and no contract
# violation; otherwise non-zero, with a line naming the sanitizer's report,
# its first frame in mgpu's sources, and the call the fuzzer was making.
# FUZZ_BUILD picks the build directory (default build-asan).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
seconds=${1:-60}
shift $(( $# > 0 ? 1 : 0 ))
build=${FUZZ_BUILD:-$root/build-asan}

"$here/asan-build.sh" "$root" "$build" >/dev/null || { echo "fuzz: the ASan build failed" >&2; exit 2; }

cd "$root"
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
trace="$build/fuzz-last-call.txt"
: >"$trace"
start=$(date +%s.%N)
# allocator_may_return_null: a failed allocation is the binding's ENOMEM
# path, not a sanitizer abort.  The timeout only guards against a hang.
LD_PRELOAD=$(gcc -print-file-name=libasan.so) \
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
LUA_PATH='lua/?.lua;lua/?/init.lua;spec/?.lua;;' LUA_CPATH="$build/?.so;;" \
  timeout --signal=KILL $((${seconds%.*} + 300)) \
  lua5.4 tools/fuzz.lua --seconds "$seconds" --trace-file "$trace" "$@" \
  > >(tee "$out") 2> >(tee "$err" >&2)
rc=$?
wait # for the tees
took=$(echo "$(date +%s.%N) - $start" | bc)

report=$(grep -m1 -E 'ERROR: AddressSanitizer|runtime error:|DEADLYSIGNAL' "$err")
if [ -n "$report" ] || ! grep -q '^fuzz: [0-9]* calls' "$out"; then
  frame=$(grep -m1 -E '#[0-9]+ .* in [A-Za-z_0-9]+ .*/src/' "$err" | sed 's/^ *//')
  last=$(sed 's/ *$//' "$trace" 2>/dev/null)
  echo "fuzz: CRASH after ${took} s (exit status $rc): ${report:-no sanitizer report}"
  [ -n "$frame" ] && echo "fuzz: first mgpu frame: $frame"
  echo "fuzz: in ${last:-an unknown call}"
  exit $(( rc == 0 ? 1 : rc ))
fi
exit $rc
