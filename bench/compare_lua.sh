#!/usr/bin/env bash
# pacer vs wrk running the same Lua scripts against `pacer serve -t 1`
# (/bytes/100), interleaved (pacer, wrk, pacer, wrk…) so drift on a shared
# machine hits both alike. Cases: no script, a static script (fields only),
# request() building each request with wrk.format, response() reading each
# response. For each run: requests/sec and client CPU time per request
# (user+sys from GNU time); then per case the medians and the ratio pacer/wrk.
# Goals: pacer's static script costs no more than no script; with request(),
# pacer's CPU per request is at most wrk's.
#
# Usage: bench/compare_lua.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), WRK (wrk),
#        SCRIPTS ("none static request response"), THREADS (1), CONNS (50)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCRIPTS=${SCRIPTS:-"none static request response"}
THREADS=${THREADS:-1}
CONNS=${CONNS:-50}
LUA_DIR=$BENCH_ROOT/bench/lua

bench_require
bench_setup
raise_fd_limit
start_pacer_serve

echo "# pacer vs wrk with Lua scripts: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: -t$THREADS -c$CONNS, duration $DURATION, $REPEATS repeats, interleaved pacer/wrk"
echo "server: pacer serve -t 1 ($SERVE_URL); scripts in bench/lua/"
echo

declare -A RPS CPU_US
for rep in $(seq "$REPEATS"); do
  for case_name in $SCRIPTS; do
    RUN_EXTRA_ARGS=()
    [[ $case_name != none ]] && RUN_EXTRA_ARGS=(-s "$LUA_DIR/$case_name.lua")
    for tool in pacer wrk; do
      run_client "$tool" "$THREADS" "$CONNS" "$SERVE_URL"
      cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
      RPS[$case_name|$tool]+="$RUN_RPS "
      CPU_US[$case_name|$tool]+="$cpu_us "
      printf '%-9s run %d %-5s %10s req/s %10s req  cpu %6ss  %8s us/req  errors %s\n' \
        "$case_name" "$rep" "$tool" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_ERRORS"
      show_output_if_empty
    done
  done
done

echo
echo "## medians over $REPEATS runs (ratio = pacer / wrk)"
echo
echo "| script | pacer req/s | wrk req/s | pacer CPU us/req | wrk CPU us/req | CPU ratio |"
echo "|---|---:|---:|---:|---:|---:|"
for case_name in $SCRIPTS; do
  # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
  {
    p_rps=$(median ${RPS[$case_name|pacer]}); w_rps=$(median ${RPS[$case_name|wrk]})
    p_cpu=$(median ${CPU_US[$case_name|pacer]}); w_cpu=$(median ${CPU_US[$case_name|wrk]})
  }
  echo "| $case_name | $p_rps | $w_rps | $p_cpu | $w_cpu | $(ratio "$p_cpu" "$w_cpu") |"
done
