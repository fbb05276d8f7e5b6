#!/usr/bin/env bash
# What --log-requests and a scenario's cookie jar cost (issue 33): pacer's CPU time
# per request (user+sys, GNU time), interleaved runs against one `pacer serve`:
#   plain     -t1 -c10 GET /bytes/100
#   log       the same with --log-requests (every request a CSV row)
#   scenario  -u10: each task one GET /session/page, no cookie in the jar (401s)
#   cookies   -u10: a login, then each task GET /session/page carrying the session
#             cookie from the jar (200s)
# Usage: bench/request_log_overhead.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CASES=(plain log scenario cookies)
[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
start_pacer_serve
BASE=${SERVE_URL%/bytes/*}
cat >"$BENCH_TMP/plain.lua" <<'LUA'
return {tasks = {{1, function(u) u:get("/session/page", nil, "page") end}}}
LUA
cat >"$BENCH_TMP/cookies.lua" <<'LUA'
local user = {tasks = {{1, function(u) u:get("/session/page", nil, "page") end}}}
function user.on_start(u) u:post("/session/login", "", nil, "login") end
return user
LUA

declare -A CPU
for _ in $(seq "$REPEATS"); do
  for c in "${CASES[@]}"; do
    url=$SERVE_URL
    case $c in
      plain) RUN_EXTRA_ARGS=() ;;
      log) RUN_EXTRA_ARGS=(--log-requests "$BENCH_TMP/requests.csv") ;;
      scenario) RUN_EXTRA_ARGS=(--scenario "$BENCH_TMP/plain.lua" -u 10); url=$BASE/ ;;
      cookies) RUN_EXTRA_ARGS=(--scenario "$BENCH_TMP/cookies.lua" -u 10); url=$BASE/ ;;
    esac
    run_client pacer 1 10 "$url"
    CPU[$c]+="$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS") "
    echo "$c: $RUN_REQUESTS requests, $RUN_CPU_S s CPU, errors $RUN_ERRORS" >&2
  done
done
machine_summary
printf '%-10s %s\n' case "CPU us/request (median of $REPEATS)"
for c in "${CASES[@]}"; do
  # shellcheck disable=SC2086
  printf '%-10s %s\n' "$c" "$(median ${CPU[$c]})"
done
