#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the whole test
# suite (unit, component, golden, allocation and end-to-end tests).
# Usage: scripts/test.sh [--built] [PRESET | ci]
#   debug (default)  the whole suite, uninstrumented, on the I/O engine PACER_IO
#                    says (auto: io_uring where the kernel allows it); the
#                    engine-level and allocation tests again on the other engine
#   asan             the same under ASan+UBSan (clang), less what no sanitizer
#                    changes (docs, man pages, manifests, packaging, pages in Chromium)
#   tsan             ThreadSanitizer: the unit tests and the end-to-end tests
#                    marked tsan (tests/e2e/suite_rules.py)
#   ci               what .ci/run runs: the three, with the whole end-to-end suite
#                    on each engine (epoll uninstrumented, io_uring under ASan),
#                    every fuzz target for 10 s, each stage's wall time printed as it
#                    ends and the total at the end (docs/testing.md)
#   --built          run the suite on the tree as it is built (install and build nothing)
set -euo pipefail
cd "$(dirname "$0")/.."
built=0
if [ "${1:-}" = --built ]; then built=1; shift; fi
preset=${1:-debug}

# The engine-level tests, run again on the engine the suite did not use.
engine_tests='^(EngineRun|EngineTls|EngineIntervals|EngineGoaway|EngineScenario|OpenModel|Pipelining|ScriptRun|Allocations|BothEngines/EngineTest)\.'

other_engine() {
  case "${PACER_IO:-auto}" in epoll) echo uring ;; *) echo epoll ;; esac
}

# ctest for a built preset: the whole suite on PACER_IO's engine, then the
# engine-level tests on the other one.
run_suite() {
  local preset=$1 runner=()
  # GCC 12's ThreadSanitizer puts its shadow memory at fixed addresses, which a kernel
  # randomising mmap with more than 28 bits can collide with ("FATAL: ThreadSanitizer:
  # unexpected memory mapping"); without address randomisation everything fits.
  if [ "$preset" = tsan ] && [ "$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
    runner=(setarch "$(uname -m)" -R)
  fi
  echo "test.sh: $preset: the whole suite (PACER_IO=${PACER_IO:-auto})"
  "${runner[@]}" ctest --preset "$preset" -j2 --timeout 2400
  local other
  other=$(other_engine)
  echo "test.sh: $preset: the engine-level tests again on $other (PACER_IO=$other)"
  PACER_IO=$other "${runner[@]}" ctest --preset "$preset" -j2 --timeout 600 -R "$engine_tests"
}

if [ "$preset" != ci ]; then
  if [ "$built" = 0 ]; then scripts/setup.sh test "$preset"; fi
  run_suite "$preset"
  exit 0
fi

# ------------------------------------------------------------------------- CI
# Stages run one after another, except that a sanitizer tree is built (at the
# lowest CPU priority) while the previous tree's tests run: those mostly wait on
# sockets, and the timing-sensitive ones (marked alone) run at normal priority.
ci_start=$SECONDS
declare -A stage_started
stage_times=()

fmt_time() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

stage_begin() { stage_started[$1]=$SECONDS; }
stage_end() {
  local seconds=$((SECONDS - stage_started[$1]))
  stage_times+=("$1 $(fmt_time "$seconds")")
  echo "ci: stage $1 $(fmt_time "$seconds")"
}

# Runs a stage in the foreground.
stage() {
  local name=$1
  shift
  stage_begin "$name"
  "$@"
  stage_end "$name"
}

# Starts a stage in the background, its output kept in build/ci/NAME.log;
# stage_wait prints that log and fails if the stage did.
declare -A stage_pid
stage_background() {
  local name=$1
  shift
  mkdir -p build/ci
  stage_begin "$name"
  ("$@") >"build/ci/$name.log" 2>&1 &
  stage_pid[$name]=$!
}
stage_wait() {
  local name=$1 rc=0
  wait "${stage_pid[$name]}" || rc=$?
  echo "ci: ---- $name (ran in the background)"
  cat "build/ci/$name.log"
  stage_end "$name"
  if [ "$rc" != 0 ]; then echo "ci: stage $name FAILED (exit $rc)" >&2; return "$rc"; fi
}

build_tree() {  # preset [nice]
  cmake --preset "$1" -DPACER_BUILD_TESTS=ON >/dev/null
  nice -n "${2:-0}" cmake --build --preset "$1"
}

summary() {
  local pid
  for pid in "${stage_pid[@]}"; do kill "$pid" 2>/dev/null || true; done  # a stage left running after a failure
  echo "ci: stage times"
  printf 'ci:   %s\n' "${stage_times[@]}"
  echo "ci: total $(fmt_time $((SECONDS - ci_start)))"
}
trap summary EXIT

stage setup scripts/setup.sh --no-build test asan
stage debug-build build_tree debug
stage_background asan-build build_tree asan 19
stage debug-tests env PACER_IO=epoll scripts/test.sh --built debug
stage_wait asan-build
stage_background tsan-build build_tree tsan 19
stage asan-tests env PACER_IO=uring scripts/test.sh --built asan
stage fuzz scripts/fuzz.sh --no-build 10
stage_wait tsan-build
stage tsan-tests scripts/test.sh --built tsan
