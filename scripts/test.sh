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

# SIGSTOP / SIGCONT to the process group of the background stage named $1 (CI builds
# the next tree beside a tree's tests); nothing without one.
declare -A stage_pid
hold() { if [ -n "${1:-}" ]; then kill -STOP -- "-${stage_pid[$1]}" 2>/dev/null || true; fi; }
resume() { if [ -n "${1:-}" ]; then kill -CONT -- "-${stage_pid[$1]}" 2>/dev/null || true; fi; }

# ctest for a built preset: the whole suite on engine $2 (what PACER_IO takes:
# auto, uring, epoll), the timing-sensitive e2e tests last and with the background
# stage $3 (if any) held, then the engine-level tests on the other engine.
run_suite() {
  local preset=$1 engine=$2 beside=${3:-} runner=() rc=0 other=epoll
  # GCC 12's ThreadSanitizer puts its shadow memory at fixed addresses, which a kernel
  # randomising mmap with more than 28 bits can collide with ("FATAL: ThreadSanitizer:
  # unexpected memory mapping"); without address randomisation everything fits.
  if [ "$preset" = tsan ] && [ "$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
    runner=(setarch "$(uname -m)" -R)
  fi
  echo "test.sh: $preset: the whole suite (PACER_IO=$engine), the timing-sensitive e2e tests last"
  PACER_IO=$engine "${runner[@]}" ctest --preset "$preset" -j2 --timeout 2400 -E '^e2e_alone$'
  hold "$beside"
  PACER_IO=$engine "${runner[@]}" ctest --preset "$preset" --timeout 1200 -R '^e2e_alone$' || rc=$?
  resume "$beside"
  [ "$rc" = 0 ] || return "$rc"
  if [ "$engine" = epoll ]; then other=uring; fi
  echo "test.sh: $preset: the engine-level tests again on $other (PACER_IO=$other)"
  PACER_IO=$other "${runner[@]}" ctest --preset "$preset" -j2 --timeout 600 -R "$engine_tests"
}

if [ "$preset" != ci ]; then
  if [ "$built" = 0 ]; then scripts/setup.sh test "$preset"; fi
  run_suite "$preset" "${PACER_IO:-auto}"
  exit 0
fi

# ------------------------------------------------------------------------- CI
# Stages run one after another, except that the next sanitizer tree is built (at
# the lowest CPU priority) while a tree's tests run: those mostly wait on sockets.
# The build is held (SIGSTOP) while the timing-sensitive tests run.
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

# Starts a stage in the background, in a process group of its own (hold, resume),
# its output kept in build/ci/NAME.log; stage_wait prints that log and fails if the
# stage did.
stage_background() {
  local name=$1
  shift
  mkdir -p build/ci
  stage_begin "$name"
  setsid "$@" >"build/ci/$name.log" 2>&1 &
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
export -f build_tree

summary() {
  local pid
  for pid in "${stage_pid[@]}"; do kill -- "-$pid" 2>/dev/null || true; done  # a stage left running after a failure
  echo "ci: stage times"
  printf 'ci:   %s\n' "${stage_times[@]}"
  echo "ci: total $(fmt_time $((SECONDS - ci_start)))"
}
trap summary EXIT

stage setup scripts/setup.sh --no-build test asan
stage debug-build build_tree debug
stage_background asan-build bash -c 'build_tree asan 19'
stage debug-tests run_suite debug epoll asan-build
stage_wait asan-build
stage_background tsan-build bash -c 'build_tree tsan 19'
stage asan-tests run_suite asan uring tsan-build
stage fuzz scripts/fuzz.sh --no-build 10
stage_wait tsan-build
stage tsan-tests run_suite tsan auto
