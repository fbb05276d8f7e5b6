#!/usr/bin/env bash
# Quick start, part 2: install what is missing, build, and run the whole test
# suite (unit, component, golden, allocation and end-to-end tests).
# Usage: scripts/test.sh [PRESET]   (debug by default; asan runs it under ASan+UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-debug}
scripts/setup.sh "$preset"
ctest --preset "$preset" -j2 --timeout 1500
