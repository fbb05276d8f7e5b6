#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the whole test
# suite (unit, component, golden, allocation and end-to-end tests).
# Usage: scripts/test.sh [PRESET]   (debug by default; asan runs it under ASan+UBSan,
# tsan under ThreadSanitizer)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-debug}
scripts/setup.sh "$preset"
runner=()
# GCC 12's ThreadSanitizer puts its shadow memory at fixed addresses, which a kernel
# randomising mmap with more than 28 bits can collide with ("FATAL: ThreadSanitizer:
# unexpected memory mapping"); without address randomisation everything fits.
if [ "$preset" = tsan ] && [ "$(sysctl -n vm.mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
  runner=(setarch "$(uname -m)" -R)
fi
"${runner[@]}" ctest --preset "$preset" -j2 --timeout 1500
