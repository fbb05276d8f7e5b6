#!/usr/bin/env bash
# pacer vs wrk, same server, same -t/-c/-d, runs interleaved (pacer, wrk, pacer, wrk…)
# so drift on a shared machine hits both tools alike. For each run: requests/sec,
# client CPU time per request (user+sys from GNU time), client peak RSS. Then per
# case the medians and the ratios pacer/wrk, as a markdown table.
#
# Servers (both started here, stopped on exit): nginx with one worker serving a
# 100-byte file, and `pacer serve -t 1` (/bytes/100). Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_wrk.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), WRK (wrk),
#        SERVERS ("nginx pacer-serve"), CASES ("1:50 2:200 1:10000", threads:conns)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVERS=${SERVERS:-"nginx pacer-serve"}
CASES=${CASES:-"1:50 2:200 1:10000"}

bench_require
bench_setup
raise_fd_limit

echo "# pacer vs wrk: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: duration $DURATION, $REPEATS repeats, interleaved pacer/wrk; fd limit $FD_LIMIT"
echo "servers: nginx (worker_processes 1, 100-byte file) and pacer serve -t 1 (/bytes/100)"
echo "no CPU pinning (no taskset): client and server share all $(nproc) cores"
echo

declare -A RPS CPU_US RSS_KB
ROWS=()
measure_all_cases pacer wrk

print_pacer_wrk_medians "medians over $REPEATS runs (ratio = pacer / wrk; goals: CPU/req <= 0.80, RSS at -c10000 <= 0.50)"
