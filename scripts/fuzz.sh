#!/usr/bin/env bash
# Builds the fuzz preset (clang + libFuzzer, ASan + UBSan) and runs every fuzz
# target for a bounded time, starting from its committed seed corpus
# (fuzz/corpus/<target>/, which also holds the inputs of past crashes, replayed
# first). Fails on any crash, leak, timeout or out-of-memory; the input that did
# it is saved under build/fuzz/artifacts/ and printed in base64.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 10 s, all targets)
# New inputs the run finds go to build/fuzz/corpus/<target>/ (not the repo); see
# docs/fuzzing.md for keeping the useful ones.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-10}
shift || true
scripts/setup.sh fuzz

targets=("$@")
if [ "${#targets[@]}" = 0 ]; then
  for bin in build/fuzz/fuzz/*_fuzz; do targets+=("$(basename "$bin" _fuzz)"); done
fi

# Symbolized stacks in crash reports (llvm-14 ships the symbolizer outside PATH).
if [ -x /usr/lib/llvm-14/bin/llvm-symbolizer ]; then export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer; fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

mkdir -p build/fuzz/artifacts
failed=()
for name in "${targets[@]}"; do
  bin=build/fuzz/fuzz/${name}_fuzz
  work=build/fuzz/corpus/$name
  log=build/fuzz/artifacts/$name.log
  mkdir -p "$work"
  rm -f build/fuzz/artifacts/"$name"-*
  echo "fuzz: $name for ${seconds}s"
  if ! "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="build/fuzz/artifacts/$name-" "$work" "fuzz/corpus/$name" >"$log" 2>&1; then
    failed+=("$name")
    tail -n 60 "$log"
    for crash in build/fuzz/artifacts/"$name"-*; do
      case "$crash" in *.log) continue ;; esac
      [ -f "$crash" ] || continue
      echo "fuzz: $name: input $crash (base64): $(base64 -w0 "$crash" | head -c 4000)"
    done
  else
    grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | tr '\n' ' '
    echo
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (logs in build/fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s without a finding"
