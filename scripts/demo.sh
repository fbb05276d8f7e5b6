#!/usr/bin/env bash
# Quick start, part 1: install what is missing, build a release binary, and run a
# 5-second benchmark against pacer's built-in target (no other software needed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh release
exec build/release/pacer demo "$@"
