#!/usr/bin/env bash
# Before and after in one command (issue 46): a base build of pacer and a candidate
# build, interleaved run by run, on
#   table: CPU per request, requests/sec and peak RSS beside wrk, per I/O engine,
#          server and threads:conns case (the benchmarks' table), with the
#          candidate/base and candidate/wrk ratios;
#   idle:  the cost of a run at a few requests a second (IDLE_RATE, open model,
#          -t1 -c10 against `pacer serve`): CPU time, its share of one core, and
#          wake-ups a second (the voluntary context switches of all its threads,
#          GNU time's %w), which should stay well under 1 % of a CPU.
# Memory and wake-up counts are not disturbed by other load on the machine; CPU
# per request is: compare CPU figures only from a quiet machine.
#
# Servers (started here, stopped on exit): nginx with one worker serving a 100-byte
# file and `pacer serve -t 1` (/bytes/100). Traffic: 127.0.0.1 only.
#
# Usage: PACER_BASE=/path/to/base/pacer bench/compare_builds.sh
#   env: PACER (the candidate, build/release/pacer), PACER_BASE (the base: required),
#        PARTS ("table idle"), SERVERS ("nginx pacer-serve"), CASES ("1:50 2:200 1:10000"),
#        ENGINES ("uring epoll"), DURATION (5s), REPEATS (3), IDLE_RATE (10), IDLE_DURATION (10s)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-"table idle"}
SERVERS=${SERVERS:-"nginx pacer-serve"}
CASES=${CASES:-"1:50 2:200 1:10000"}
IDLE_RATE=${IDLE_RATE:-10}
IDLE_DURATION=${IDLE_DURATION:-10s}

[[ -n ${PACER_BASE:-} ]] || bench_die "PACER_BASE: the base build's pacer binary, e.g. PACER_BASE=/tmp/base/pacer"
for part in $PARTS; do
  case $part in table | idle) ;; *) bench_die "PARTS: unknown part '$part' (table, idle)" ;; esac
done
[[ $IDLE_RATE =~ ^[1-9][0-9]*$ ]] || bench_die "IDLE_RATE must be a positive integer, got '$IDLE_RATE'"
[[ $(duration_s "$IDLE_DURATION") =~ ^[1-9][0-9]*$ ]] || bench_die "bad IDLE_DURATION '$IDLE_DURATION' (e.g. 10s)"
bench_require
bench_setup
raise_fd_limit

# The table: every engine's candidate and base beside wrk, interleaved.
compare_table() {
  local row engine line c_cpu b_cpu w_cpu c_rss b_rss w_rss c_rps b_rps
  local -a tools
  read -ra tools <<<"$(pacer_engine_tools)"  # pacer-ENGINE base-ENGINE for each engine
  declare -gA RPS CPU_US RSS_KB
  ROWS=()
  measure_all_cases "${tools[@]}" wrk
  echo "## medians over $REPEATS runs: candidate (cand) vs base, and vs wrk"
  echo
  echo "| server | case | engine | cand req/s | base req/s | cand CPU us/req | base CPU us/req | cand/base CPU | cand/wrk CPU | cand RSS KB | base RSS KB | cand/base RSS | cand/wrk RSS | wrk CPU us/req | wrk RSS KB |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for row in "${ROWS[@]}"; do
    # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
    { w_cpu=$(median ${CPU_US[$row|wrk]:-}); w_rss=$(median ${RSS_KB[$row|wrk]:-}); }
    for engine in ${ENGINES:-uring epoll}; do
      # shellcheck disable=SC2086
      {
        c_rps=$(median ${RPS[$row|pacer-$engine]:-}); b_rps=$(median ${RPS[$row|base-$engine]:-})
        c_cpu=$(median ${CPU_US[$row|pacer-$engine]:-}); b_cpu=$(median ${CPU_US[$row|base-$engine]:-})
        c_rss=$(median ${RSS_KB[$row|pacer-$engine]:-}); b_rss=$(median ${RSS_KB[$row|base-$engine]:-})
      }
      line="| ${row%%|*} | ${row#*|} | $engine | $c_rps | $b_rps | $c_cpu | $b_cpu | $(ratio "$c_cpu" "$b_cpu") |"
      line+=" $(ratio "$c_cpu" "$w_cpu") | $c_rss | $b_rss | $(ratio "$c_rss" "$b_rss") | $(ratio "$c_rss" "$w_rss") | $w_cpu | $w_rss |"
      echo "$line"
    done
  done
  echo
}

# One open-model run at IDLE_RATE/s under GNU time: sets IDLE_CPU_S, IDLE_WAKEUPS (voluntary switches).
idle_run() {
  local bin=$1 url=$2 out_file=$BENCH_TMP/idle.out time_file=$BENCH_TMP/idle.time user sys
  timeout -k 5 $(( $(duration_s "$IDLE_DURATION") + 30 )) "$GNU_TIME" -f '%U %S %w' -o "$time_file" \
    "$bin" -t1 -c10 -R "$IDLE_RATE" -d "$IDLE_DURATION" "$url" >"$out_file" 2>&1 || true
  read -r user sys IDLE_WAKEUPS < <(tail -1 "$time_file" 2>/dev/null || echo "0 0 0")
  IDLE_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
  parse_client_output "$out_file"
}

compare_idle() {
  local rep tool bin seconds
  local -A cpu wake
  seconds=$(duration_s "$IDLE_DURATION")
  start_pacer_serve
  echo "## idle cost: -t1 -c10 -R $IDLE_RATE -d ${seconds}s against pacer serve ($REPEATS repeats, interleaved)"
  for rep in $(seq "$REPEATS"); do
    for tool in cand base; do
      bin=$PACER; [[ $tool == base ]] && bin=$PACER_BASE
      idle_run "$bin" "$SERVE_URL"
      cpu[$tool]+="$IDLE_CPU_S "
      wake[$tool]+="$IDLE_WAKEUPS "
      printf 'idle run %d %-4s %6s requests  cpu %6ss  %8s voluntary switches  errors %s\n' \
        "$rep" "$tool" "$RUN_REQUESTS" "$IDLE_CPU_S" "$IDLE_WAKEUPS" "$RUN_ERRORS"
    done
  done
  echo
  echo "| build | CPU s (median) | share of one CPU | wake-ups/s |"
  echo "|---|---:|---:|---:|"
  for tool in cand base; do
    # shellcheck disable=SC2086
    awk -v t="$tool" -v c="$(median ${cpu[$tool]})" -v w="$(median ${wake[$tool]})" -v s="$seconds" \
      'BEGIN { printf "| %s | %.2f | %.2f %% | %.1f |\n", t, c, 100 * c / s, w / s }'
  done
  echo
}

echo "# candidate vs base: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "candidate: $PACER ($("$PACER" --version 2>&1 | head -1))"
echo "base:      $PACER_BASE ($("$PACER_BASE" --version 2>&1 | head -1))"
echo "settings: duration $DURATION, $REPEATS repeats, engines ${ENGINES:-uring epoll}; fd limit $FD_LIMIT"
echo
for part in $PARTS; do
  "compare_$part"
done
