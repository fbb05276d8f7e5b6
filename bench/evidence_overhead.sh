#!/usr/bin/env bash
# What the evidence (issue 28) costs the load: pacer's CPU time per request
# (user+sys, GNU time) with the self-measurement at --interval 1s (always on: a
# clock read per wait, a getrusage and a schedstat pread per worker per interval,
# /proc/self and /proc/net/tcp once per interval on the main thread), at
# --interval 10ms (100 times the samples: the difference, over the extra
# intervals, bounds one interval's cost from above, since an interval also merges
# histograms), and with --server-metrics scraping node_exporter every 1 s plus
# --server-pid on the server. Same server, same -t/-c/-d, interleaved
# (plain, fine, metrics, ...), medians of REPEATS.
#
# Servers (started here, stopped on exit): `pacer serve -t 1` and
# prometheus-node-exporter on free 127.0.0.1 ports.
#
# Usage: bench/evidence_overhead.sh
#   env: DURATION (5s), REPEATS (3), THREADS (1), CONNECTIONS (10),
#        PACER (build/release/pacer), NODE_EXPORTER (prometheus-node-exporter)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNECTIONS=${CONNECTIONS:-10}
NODE_EXPORTER=${NODE_EXPORTER:-prometheus-node-exporter}
CASES=(plain fine metrics)

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
command -v "$NODE_EXPORTER" >/dev/null || bench_die "node exporter not found (apt-get install prometheus-node-exporter)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
start_pacer_serve
# start_pacer_serve set SERVE_PID: the server --server-pid samples.

NE_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NE_PORT" >"$BENCH_TMP/node_exporter.log" 2>&1 &
BENCH_PIDS+=("$!")
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$NE_PORT/metrics" >/dev/null 2>&1 && break
  sleep 0.1
done

RUN_SEQ=0
run_case() {
  local case=$1 extra=() interval=1s user sys
  RUN_SEQ=$(( RUN_SEQ + 1 ))
  local out=$BENCH_TMP/run.$RUN_SEQ.out err=$BENCH_TMP/run.$RUN_SEQ.err time_file=$BENCH_TMP/run.$RUN_SEQ.time
  case $case in
    fine) interval=10ms ;;
    metrics)
      extra=(--server-metrics "http://127.0.0.1:$NE_PORT/metrics" --server-metric 'node_cpu_seconds_total|node_load1')
      [[ -n $SERVE_PID ]] && extra+=(--server-pid "$SERVE_PID")
      ;;
  esac
  timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S' -o "$time_file" "$PACER" --plain --interval "$interval" \
    -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "${extra[@]}" "$SERVE_URL" >"$out" 2>"$err" || true
  RUN_REQUESTS=$(awk '/requests in/ { print $1; exit }' "$out")
  read -r user sys < <(tail -1 "$time_file" 2>/dev/null || echo "0 0")
  RUN_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
}

echo "# CPU per request with the evidence's sampling: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$PACER" --version 2>&1 | head -1)"
echo "settings: -t$THREADS -c$CONNECTIONS -d$DURATION, $REPEATS repeats, interleaved ${CASES[*]}"
echo

declare -A CPU_US CPU_S
for round in $(seq "$REPEATS"); do
  for case in "${CASES[@]}"; do
    run_case "$case"
    us=$(cpu_us_per_request "$RUN_CPU_S" "${RUN_REQUESTS:-0}")
    CPU_US[$case]="${CPU_US[$case]:-} $us"
    CPU_S[$case]="${CPU_S[$case]:-} $RUN_CPU_S"
    echo "round $round $case: ${RUN_REQUESTS:-0} requests, ${RUN_CPU_S}s CPU, $us us/request"
  done
done

echo
echo "| case | CPU us/request (median) | vs plain | CPU s (median) |"
echo "|---|---:|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
plain=$(median ${CPU_US[plain]})
for case in "${CASES[@]}"; do
  # shellcheck disable=SC2086
  m=$(median ${CPU_US[$case]})
  # shellcheck disable=SC2086
  echo "| $case | $m | $(ratio "$m" "$plain") | $(median ${CPU_S[$case]}) |"
done
