#!/usr/bin/env bash
# What the live web view costs the load: pacer's CPU time per request (user+sys,
# GNU time) without --web, with --web and no page open, and with --web and a
# headless Chromium showing the live page for the whole run. Same server, same
# -t/-c/-d, runs interleaved (plain, web, web+browser, ...); the browser's own CPU
# is not pacer's and is not counted. The view is fed from the interval figures the
# controller already merges, so the expected difference is noise: per --interval
# the report so far rendered once as JSON and one small JSON object per page, and a
# server thread asleep in poll() otherwise.
#
# Server (started here, stopped on exit): `pacer serve -t 1` (/bytes/100).
# Traffic: 127.0.0.1 only; the web view binds 127.0.0.1 on a free port.
#
# Usage: bench/web_overhead.sh
#   env: DURATION (5s), REPEATS (3), THREADS (1), CONNECTIONS (10), INTERVAL (1s),
#        PACER (build/release/pacer), CHROMIUM (/usr/bin/chromium)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNECTIONS=${CONNECTIONS:-10}
INTERVAL=${INTERVAL:-1s}
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
CASES=(plain web web+browser)

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
[[ -x $CHROMIUM ]] || bench_die "$CHROMIUM not found (apt-get install chromium)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
start_pacer_serve

# Starts the browser on the web view's page once pacer has printed its URL.
attach_browser() {
  local err=$1 url=
  for _ in $(seq 100); do
    url=$(grep -o 'web view at http://[^ ]*' "$err" 2>/dev/null | head -1 | cut -d' ' -f4 || true)
    [[ -n $url ]] && break
    sleep 0.05
  done
  [[ -n $url ]] || bench_die "no web view URL from pacer: $(cat "$err")"
  "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
    --user-data-dir="$BENCH_TMP/profile.$RUN_SEQ" "$url" >/dev/null 2>&1 &
  BROWSER_PID=$!
  BENCH_PIDS+=("$BROWSER_PID")
  # The page holds /events open: an established connection to the view's port.
  local port=${url#http://127.0.0.1:}
  port=${port%%/*}
  BROWSER_ATTACHED=no
  for _ in $(seq 100); do
    if ss -Htn state established "( sport = :$port )" 2>/dev/null | grep -q .; then
      BROWSER_ATTACHED=yes
      break
    fi
    sleep 0.05
  done
}

# run_case CASE: one pacer run; sets RUN_REQUESTS and RUN_CPU_S.
RUN_SEQ=0
run_case() {
  local case=$1 web=() user sys
  RUN_SEQ=$(( RUN_SEQ + 1 ))
  local out=$BENCH_TMP/run.$RUN_SEQ.out err=$BENCH_TMP/run.$RUN_SEQ.err time_file=$BENCH_TMP/run.$RUN_SEQ.time
  [[ $case == plain ]] || web=(--web 127.0.0.1:0)
  BROWSER_PID=
  timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S' -o "$time_file" "$PACER" --plain --interval "$INTERVAL" \
    -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" "${web[@]}" "$SERVE_URL" >"$out" 2>"$err" &
  local pid=$!
  [[ $case == web+browser ]] && attach_browser "$err"
  wait "$pid" || true
  if [[ -n $BROWSER_PID ]]; then
    kill "$BROWSER_PID" 2>/dev/null || true
    wait "$BROWSER_PID" 2>/dev/null || true
  fi
  RUN_REQUESTS=$(awk '/requests in/ { print $1; exit }' "$out")
  read -r user sys < <(tail -1 "$time_file" 2>/dev/null || echo "0 0")
  RUN_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
}

echo "# CPU per request with and without --web: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$PACER" --version 2>&1 | head -1)"
echo "settings: -t$THREADS -c$CONNECTIONS -d$DURATION --interval $INTERVAL, $REPEATS repeats, interleaved ${CASES[*]}"
echo

declare -A CPU_US
for round in $(seq "$REPEATS"); do
  for case in "${CASES[@]}"; do
    run_case "$case"
    us=$(cpu_us_per_request "$RUN_CPU_S" "${RUN_REQUESTS:-0}")
    CPU_US[$case]="${CPU_US[$case]:-} $us"
    note=
    [[ $case == web+browser ]] && note=", page attached: $BROWSER_ATTACHED"
    echo "round $round $case: ${RUN_REQUESTS:-0} requests, ${RUN_CPU_S}s CPU, $us us/request$note"
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
