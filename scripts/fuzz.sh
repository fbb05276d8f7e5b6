#!/usr/bin/env bash
# Builds the asan preset (clang, ASan + UBSan; its tree holds the libFuzzer
# targets) and runs every fuzz target for a bounded time, starting from its
# committed seed corpus (fuzz/corpus/<target>/, which also holds the inputs of past
# crashes, replayed first), as many at once as there are cores. Fails on any crash,
# leak, timeout or out-of-memory; the input that did it is saved under
# build/asan/fuzz-artifacts/ and printed in base64.
# Usage: scripts/fuzz.sh [--no-build] [SECONDS_PER_TARGET] [TARGET...]
#   (default 10 s, all targets; --no-build runs what build/asan already has)
# New inputs the run finds go to build/asan/fuzz-corpus/<target>/ (not the repo);
# see docs/fuzzing.md for keeping the useful ones.
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
if [ "${1:-}" = --no-build ]; then build=0; shift; fi
seconds=${1:-10}
shift || true
if [ "$build" = 1 ]; then scripts/setup.sh test asan; fi

targets=("$@")
if [ "${#targets[@]}" = 0 ]; then
  for bin in build/asan/fuzz/*_fuzz; do targets+=("$(basename "$bin" _fuzz)"); done
fi

# Symbolized stacks in crash reports (llvm-14 ships the symbolizer outside PATH).
if [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer; fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

artifacts=build/asan/fuzz-artifacts
mkdir -p "$artifacts"

# One target: its verdict line on success; its log's tail and the crashing input on failure.
fuzz_one() {
  local name=$1 bin=build/asan/fuzz/${1}_fuzz work=build/asan/fuzz-corpus/$1 log=$artifacts/$1.log
  mkdir -p "$work"
  rm -f "$artifacts/$name"-*
  if "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$artifacts/$name-" "$work" "fuzz/corpus/$name" >"$log" 2>&1; then
    echo "fuzz: $name ${seconds}s: $(grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | tr '\n' ' ')"
    return 0
  fi
  echo "fuzz: $name FAILED"
  tail -n 60 "$log"
  for crash in "$artifacts/$name"-*; do
    case "$crash" in *.log) continue ;; esac
    [ -f "$crash" ] || continue
    echo "fuzz: $name: input $crash (base64): $(base64 -w0 "$crash" | head -c 4000)"
  done
  return 1
}

jobs=$(nproc 2>/dev/null || echo 2)
for name in "${targets[@]}"; do
  # At most $jobs targets at once; each one's lines and exit code go to files.
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (if fuzz_one "$name" >"$artifacts/$name.out" 2>&1; then echo 0; else echo 1; fi >"$artifacts/$name.rc") &
done
wait
failed=()
for name in "${targets[@]}"; do
  cat "$artifacts/$name.out"
  if [ "$(cat "$artifacts/$name.rc")" != 0 ]; then failed+=("$name"); fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (logs in $artifacts/)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s without a finding"
