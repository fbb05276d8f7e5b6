#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the whole test
# suite (unit, component, golden, allocation and end-to-end tests).
# Usage: scripts/test.sh [PRESET]   (debug by default; asan runs it under ASan+UBSan,
# tsan under ThreadSanitizer). The engine-dependent tests run on both I/O engines.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-debug}
scripts/setup.sh test "$preset"
runner=()
# GCC 12's ThreadSanitizer puts its shadow memory at fixed addresses, which a kernel
# randomising mmap with more than 28 bits can collide with ("FATAL: ThreadSanitizer:
# unexpected memory mapping"); without address randomisation everything fits.
if [ "$preset" = tsan ] && [ "$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
  runner=(setarch "$(uname -m)" -R)
fi
# The whole suite on the default engine (--io auto: io_uring where the kernel
# allows it), then what depends on the I/O engine again on epoll (PACER_IO decides
# what auto means): the engine-level, engine-seam and allocation tests in every
# preset, and in the debug preset the end-to-end files that exercise the engine
# (tests/e2e/conftest.py: ENGINE_FILES; sanitizer presets would double CI's
# longest runs).
"${runner[@]}" ctest --preset "$preset" -j2 --timeout 1500
engine_tests='^(EngineRun|EngineTls|EngineIntervals|EngineGoaway|EngineScenario|OpenModel|Pipelining|ScriptRun|Allocations|BothEngines/EngineTest)\.'
if [ "$preset" = debug ]; then engine_tests="$engine_tests|^e2e\$"; fi
echo "test.sh: the engine tests again on epoll (PACER_IO=epoll)"
PACER_IO=epoll PACER_E2E_ENGINE_ONLY=1 "${runner[@]}" ctest --preset "$preset" -j2 --timeout 1500 -R "$engine_tests"
