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
FD_HEADROOM=100  # listening socket, epoll, stdio, … beyond one fd per connection

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

for server in $SERVERS; do
  case $server in
    nginx) start_nginx; url=$NGINX_URL ;;
    pacer-serve) start_pacer_serve; url=$SERVE_URL ;;
    *) bench_die "unknown server $server (nginx, pacer-serve)" ;;
  esac
  echo "## server: $server ($url)"
  for case_spec in $CASES; do
    threads=${case_spec%%:*}
    conns=${case_spec##*:}
    name="-t$threads -c$conns"
    if (( conns + FD_HEADROOM > FD_LIMIT )); then
      echo "skip $name: fd hard limit $FD_LIMIT is below $((conns + FD_HEADROOM)) (raise it with ulimit -Hn as root)"
      continue
    fi
    ROWS+=("$server|$name")
    measure_pacer_and_wrk "$server" "$name" "$threads" "$conns" "$url"
  done
  echo
done

print_pacer_wrk_medians "medians over $REPEATS runs (ratio = pacer / wrk; goals: CPU/req <= 0.80, RSS at -c10000 <= 0.50)"
