#!/usr/bin/env bash
# A scenario (--scenario) against the same load as a plain script (-s) with
# request(), against `pacer serve -t 1` (/bytes/100), interleaved (script,
# scenario, script, …) so drift on a shared machine hits both alike. The
# scenario's one task makes one request with no think time (bench/lua/
# scenario_one.lua); the script builds each request with wrk.format (bench/lua/
# request.lua); both cycle the same four paths over -c connections (the
# scenario: -u = -c users, one connection each). For each run: requests/sec and
# client CPU time per request (user+sys from GNU time); then the medians and
# the ratio scenario/script.
# Goal (issue 16): the scenario costs at most 1.3x the script's CPU per request.
#
# Usage: bench/compare_scenario.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), THREADS (1), CONNS (50)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNS=${CONNS:-50}
LUA_DIR=$BENCH_ROOT/bench/lua

bench_require
bench_setup
raise_fd_limit
start_pacer_serve

echo "# pacer: scenario vs script: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: -t$THREADS -c$CONNS, duration $DURATION, $REPEATS repeats, interleaved script/scenario"
echo "server: pacer serve -t 1 ($SERVE_URL)"
echo

declare -A RPS CPU_US
for rep in $(seq "$REPEATS"); do
  for case_name in script scenario; do
    if [[ $case_name == script ]]; then
      RUN_EXTRA_ARGS=(-s "$LUA_DIR/request.lua")
    else
      RUN_EXTRA_ARGS=(--scenario "$LUA_DIR/scenario_one.lua")
    fi
    run_client pacer "$THREADS" "$CONNS" "$SERVE_URL"
    cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
    RPS[$case_name]+="$RUN_RPS "
    CPU_US[$case_name]+="$cpu_us "
    printf '%-9s run %d %10s req/s %10s req  cpu %6ss  %8s us/req  errors %s\n' \
      "$case_name" "$rep" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_ERRORS"
    show_output_if_empty
  done
done

echo
echo "## medians over $REPEATS runs (ratio = scenario / script)"
echo
echo "| case | req/s | CPU us/req |"
echo "|---|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
{
  s_rps=$(median ${RPS[script]}); c_rps=$(median ${RPS[scenario]})
  s_cpu=$(median ${CPU_US[script]}); c_cpu=$(median ${CPU_US[scenario]})
}
echo "| script (-s, request()) | $s_rps | $s_cpu |"
echo "| scenario (one request per task) | $c_rps | $c_cpu |"
echo
echo "CPU ratio scenario/script: $(ratio "$c_cpu" "$s_cpu") (goal: <= 1.3)"
