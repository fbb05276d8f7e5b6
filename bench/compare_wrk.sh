#!/usr/bin/env bash
# pacer (on each I/O engine: --io uring, --io epoll) vs wrk, same server, same
# -t/-c/-d, runs interleaved (pacer-uring, pacer-epoll, wrk, pacer-uring, …) so drift
# on a shared machine hits every tool alike. For each run: requests/sec,
# client CPU time per request (user+sys from GNU time), client peak RSS. Then per
# case the medians and the ratios of each pacer engine to wrk, as a markdown table.
#
# Servers (both started here, stopped on exit): nginx with one worker serving a
# 100-byte file, and `pacer serve -t 1` (/bytes/100). Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_wrk.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), WRK (wrk),
#        SERVERS ("nginx pacer-serve"), CASES ("1:50 2:200 1:10000", threads:conns),
#        ENGINES ("uring epoll": the pacer engines to run)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVERS=${SERVERS:-"nginx pacer-serve"}
CASES=${CASES:-"1:50 2:200 1:10000"}

bench_require
read -r -a PACER_TOOLS <<<"$(pacer_engine_tools)"
bench_setup
raise_fd_limit

echo "# pacer vs wrk: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: duration $DURATION, $REPEATS repeats, interleaved ${PACER_TOOLS[*]} wrk; fd limit $FD_LIMIT"
echo "servers: nginx (worker_processes 1, 100-byte file) and pacer serve -t 1 (/bytes/100)"
echo "no CPU pinning (no taskset): client and server share all $(nproc) cores"
echo

declare -A RPS CPU_US RSS_KB
ROWS=()
measure_all_cases "${PACER_TOOLS[@]}" wrk

print_engines_wrk_medians "medians over $REPEATS runs (ratios to wrk; goals: CPU/req <= 0.70, RSS at -c50 <= 1, at -c10000 <= 0.30)" \
  "${PACER_TOOLS[@]}"
