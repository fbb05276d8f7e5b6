#!/usr/bin/env bash
# Quick start, part 1: install what building and running pacer needs (the run
# profile of scripts/setup.sh: no test or benchmark dependency), build only the
# pacer binary and its HTTP/3 module (the demo preset, build/demo/: precompiled
# headers and a unity build, cmake/fast_build.cmake), and run a 5-second benchmark
# against pacer's built-in target (no other software needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh run
exec build/demo/pacer demo "$@"
