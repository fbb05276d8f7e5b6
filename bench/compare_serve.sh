#!/usr/bin/env bash
# Server comparison with a neutral client: wrk against nginx (one worker, a 100-byte
# file) and against `pacer serve -t 1` (/bytes/100), same settings, runs interleaved
# (nginx, pacer serve, nginx, …). Prints requests/sec side by side, and the server's
# CPU time per request (utime+stime from /proc, nginx master + worker).
# Traffic: 127.0.0.1 only; both servers are stopped on exit.
#
# Usage: bench/compare_serve.sh
#   env: DURATION (5s), REPEATS (3), THREADS (1), CONNECTIONS (50), WRK, PACER
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNECTIONS=${CONNECTIONS:-50}
TICKS_PER_S=$(getconf CLK_TCK)

bench_require
bench_setup
raise_fd_limit
start_nginx
start_pacer_serve

echo "# nginx vs pacer serve, client wrk: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: wrk -t$THREADS -c$CONNECTIONS -d$DURATION, $REPEATS repeats, interleaved"
echo "servers: nginx worker_processes 1 ($NGINX_URL), pacer serve -t 1 ($SERVE_URL)"
echo "no CPU pinning (no taskset): client and server share all $(nproc) cores"
echo

declare -A RPS SRV_US
for rep in $(seq "$REPEATS"); do
  for server in nginx pacer-serve; do
    if [[ $server == nginx ]]; then url=$NGINX_URL pid=$NGINX_PID; else url=$SERVE_URL pid=$SERVE_PID; fi
    ticks_before=$(proc_tree_ticks "$pid")
    run_client wrk "$THREADS" "$CONNECTIONS" "$url"
    ticks=$(( $(proc_tree_ticks "$pid") - ticks_before ))
    srv_us=$(cpu_us_per_request "$(awk -v t="$ticks" -v h="$TICKS_PER_S" 'BEGIN { print t / h }')" "$RUN_REQUESTS")
    RPS[$server]+="$RUN_RPS "
    SRV_US[$server]+="$srv_us "
    printf '%-12s run %d %10s req/s %10s req  server cpu %8s us/req  errors %s\n' \
      "$server" "$rep" "$RUN_RPS" "$RUN_REQUESTS" "$srv_us" "$RUN_ERRORS"
  done
done

echo
echo "## medians over $REPEATS runs (wrk -t$THREADS -c$CONNECTIONS -d$DURATION)"
echo
echo "| server | req/s | server CPU us/req |"
echo "|---|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
for server in nginx pacer-serve; do
  echo "| $server | $(median ${RPS[$server]}) | $(median ${SRV_US[$server]}) |"
done
echo
# shellcheck disable=SC2086
echo "pacer serve / nginx req/s: $(ratio "$(median ${RPS[pacer-serve]})" "$(median ${RPS[nginx]})")"
