#!/usr/bin/env bash
# What Prometheus remote write (issue 29) costs the load: pacer's CPU time per
# request (user+sys, GNU time) without it, pushing every 1 s to a live Prometheus
# (Debian's, started here with --web.enable-remote-write-receiver), and pushing to a
# port nothing listens on (every push retried, then dropped). Same server, same
# -t/-c/-d, runs interleaved (plain, push, push-dead, ...). The push's work is on
# the main thread (series, protobuf, snappy, once per --interval) and on its own
# thread (HTTP), never on a worker's: the expected difference is noise.
#
# Servers (started here, stopped on exit): `pacer serve -t 1` (/bytes/100) and
# prometheus on free 127.0.0.1 ports, its data in the temp dir.
#
# Usage: bench/prometheus_overhead.sh
#   env: DURATION (5s), REPEATS (3), THREADS (1), CONNECTIONS (10), INTERVAL (1s),
#        PACER (build/release/pacer), PROMETHEUS (prometheus)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNECTIONS=${CONNECTIONS:-10}
INTERVAL=${INTERVAL:-1s}
PROMETHEUS=${PROMETHEUS:-prometheus}
CASES=(plain push push-dead)

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
command -v "$PROMETHEUS" >/dev/null || bench_die "prometheus not found (apt-get install prometheus)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
start_pacer_serve

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PROM_PORT=$(free_port)
DEAD_PORT=$(free_port)
printf 'global:\n  scrape_interval: 1m\n' >"$BENCH_TMP/prometheus.yml"
"$PROMETHEUS" --config.file="$BENCH_TMP/prometheus.yml" --storage.tsdb.path="$BENCH_TMP/prometheus-data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-remote-write-receiver --log.level=warn \
  >"$BENCH_TMP/prometheus.log" 2>&1 &
BENCH_PIDS+=("$!")
for _ in $(seq 300); do
  curl -fs "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null 2>&1 && break
  sleep 0.1
done
curl -fs "http://127.0.0.1:$PROM_PORT/-/ready" >/dev/null || bench_die "prometheus not ready: $(cat "$BENCH_TMP/prometheus.log")"

# run_case CASE: one pacer run; sets RUN_REQUESTS, RUN_CPU_S and RUN_PUSHED.
RUN_SEQ=0
run_case() {
  local case=$1 push=() user sys
  RUN_SEQ=$(( RUN_SEQ + 1 ))
  local out=$BENCH_TMP/run.$RUN_SEQ.out err=$BENCH_TMP/run.$RUN_SEQ.err time_file=$BENCH_TMP/run.$RUN_SEQ.time
  case $case in
    push) push=(--prometheus-remote-write "http://127.0.0.1:$PROM_PORT/api/v1/write" --run-id "bench-$RUN_SEQ") ;;
    push-dead) push=(--prometheus-remote-write "http://127.0.0.1:$DEAD_PORT/api/v1/write" --prometheus-timeout 1s) ;;
  esac
  timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S' -o "$time_file" "$PACER" --plain --interval "$INTERVAL" \
    -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "${push[@]}" "$SERVE_URL" >"$out" 2>"$err" || true
  RUN_REQUESTS=$(awk '/requests in/ { print $1; exit }' "$out")
  RUN_PUSHED=$(grep -o 'Prometheus remote write: .*' "$out" | cut -c1-90 || true)
  read -r user sys < <(tail -1 "$time_file" 2>/dev/null || echo "0 0")
  RUN_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
}

echo "# CPU per request with and without --prometheus-remote-write: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$PACER" --version 2>&1 | head -1)"
echo "settings: -t$THREADS -c$CONNECTIONS -d$DURATION --interval $INTERVAL, $REPEATS repeats, interleaved ${CASES[*]}"
echo

declare -A CPU_US
for round in $(seq "$REPEATS"); do
  for case in "${CASES[@]}"; do
    run_case "$case"
    us=$(cpu_us_per_request "$RUN_CPU_S" "${RUN_REQUESTS:-0}")
    CPU_US[$case]="${CPU_US[$case]:-} $us"
    echo "round $round $case: ${RUN_REQUESTS:-0} requests, ${RUN_CPU_S}s CPU, $us us/request${RUN_PUSHED:+; $RUN_PUSHED}"
  done
done

echo
echo "| case | CPU us/request (median) | vs plain |"
echo "|---|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
plain=$(median ${CPU_US[plain]})
for case in "${CASES[@]}"; do
  # shellcheck disable=SC2086
  m=$(median ${CPU_US[$case]})
  echo "| $case | $m | $(ratio "$m" "$plain") |"
done
