#!/usr/bin/env bash
# How far pacer and wrk are from the floor: the CPU time per request of
# bench/floor_client.cc, a client that does nothing per request but one write and
# one read (no parser, no clock, no statistics), and of the same client reading
# with recvmsg and the kernel's receive stamps as pacer does (floor-stamps). Same
# server, same -t/-c/-d, runs interleaved (floor, floor-stamps, pacer, wrk, ...; the
# order rotates by one each repeat, bench/lib.sh measure_clients).
#
# Over loopback the kernel charges each client's write with the server's TCP
# receive and wake-up, so most of a request's CPU time is the floor's; the ratio
# floor/wrk is the lowest pacer/wrk any client doing the same traffic can reach.
#
# Servers (started here, stopped on exit): nginx with one worker serving a
# 100-byte file, and `pacer serve -t 1` (/bytes/100). Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_floor.sh
#   env: DURATION (5s), REPEATS (3), PACER, WRK, FLOOR (build/release/bench/floor_client),
#        SERVERS ("nginx pacer-serve"), CASES ("1:50 2:200 1:10000", threads:conns),
#        ENGINES ("uring epoll": pacer once per I/O engine, pacer-uring and pacer-epoll)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVERS=${SERVERS:-"nginx pacer-serve"}
CASES=${CASES:-"1:50 2:200 1:10000"}
bench_require
read -r -a PACER_TOOLS <<<"$(pacer_engine_tools)"
TOOLS=(floor floor-stamps "${PACER_TOOLS[@]}" wrk)

[[ -x $FLOOR ]] || bench_die "$FLOOR not built: cmake --preset release && cmake --build --preset release"
bench_setup
raise_fd_limit

echo "# the floor vs pacer vs wrk: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: duration $DURATION, $REPEATS repeats, interleaved ${TOOLS[*]}; fd limit $FD_LIMIT"
echo "no CPU pinning (no taskset): client and server share all $(nproc) cores"
echo

declare -A RPS CPU_US RSS_KB
ROWS=()
measure_all_cases "${TOOLS[@]}"

echo "## medians over $REPEATS runs: CPU us/request, and ratios (goal: each pacer engine / floor-stamps <= 0.90)"
echo
head="| server | case |" rule="|---|---|"
for tool in "${TOOLS[@]}"; do head+=" $tool |"; rule+="---:|"; done
head+=" floor/wrk | floor-stamps/wrk |"; rule+="---:|---:|"
for tool in "${PACER_TOOLS[@]}"; do head+=" $tool/wrk | $tool/floor-stamps |"; rule+="---:|---:|"; done
echo "$head"
echo "$rule"
for row in "${ROWS[@]}"; do
  declare -A med=()
  line="| ${row%%|*} | ${row#*|} |"
  for tool in "${TOOLS[@]}"; do
    # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
    med[$tool]=$(median ${CPU_US[$row|$tool]})
    line+=" ${med[$tool]} |"
  done
  line+=" $(ratio "${med[floor]}" "${med[wrk]}") | $(ratio "${med[floor-stamps]}" "${med[wrk]}") |"
  for tool in "${PACER_TOOLS[@]}"; do
    line+=" $(ratio "${med[$tool]}" "${med[wrk]}") | $(ratio "${med[$tool]}" "${med[floor-stamps]}") |"
  done
  echo "$line"
done
