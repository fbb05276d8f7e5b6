#!/usr/bin/env bash
# The shop scenario (bench/lua/shop_busy.lua: log in, then browse 4 : order 1,
# no think time) in pacer and as a Locust 2.x locustfile (bench/locust/shop_busy.py,
# Debian's python3-locust), against the same `pacer serve -t 1`, interleaved
# (pacer, locust, pacer, ...). For each run: requests/sec and the client's CPU
# time per request (user+sys of the whole process tree, GNU time); then the
# medians and the ratio locust/pacer. Locust runs one process (one core at most),
# pacer one thread (-t1): CPU per request is what compares.
# Goal (issue 27): pacer at least 50 times less CPU per request than Locust.
#
# Usage: bench/compare_locust.sh
#   env: DURATION (10s), REPEATS (3), PACER (build/release/pacer), USERS (20)
set -euo pipefail
DURATION=${DURATION:-10s}
USERS=${USERS:-20}
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v locust >/dev/null || bench_die "locust is not installed (apt-get install python3-locust)"

bench_require
bench_setup
raise_fd_limit
start_pacer_serve

echo "# pacer vs Locust, the shop scenario: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: $USERS users, no think time, duration $DURATION, $REPEATS repeats, interleaved pacer/locust"
echo "server: pacer serve -t 1 (${SERVE_URL%%/bytes*}); Locust $(locust --version 2>&1 | awk '{print $2; exit}')"
echo

seconds=$(duration_s "$DURATION")
origin=$(sed -E 's#^(https?://[^/]+).*#\1#' <<<"$SERVE_URL")  # the scenario's paths are its own
declare -A RPS CPU_US
for rep in $(seq "$REPEATS"); do
  for tool in pacer locust; do
    time_file=$BENCH_TMP/$tool.$rep.time
    out=$BENCH_TMP/$tool.$rep.out
    if [[ $tool == pacer ]]; then
      timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S' -o "$time_file" \
        "$PACER" --scenario "$BENCH_ROOT/bench/lua/shop_busy.lua" -t1 -u "$USERS" -d "$DURATION" --format json \
        "$origin/" >"$out" 2>/dev/null || true
      requests=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["responses"])' "$out")
    else
      timeout -k 5 "$(( seconds + 60 ))" "$GNU_TIME" -f '%U %S' -o "$time_file" \
        locust -f "$BENCH_ROOT/bench/locust/shop_busy.py" --headless -u "$USERS" -r 1000 -t "${seconds}s" \
        --host "$origin" --csv "$BENCH_TMP/locust.$rep" --only-summary --loglevel ERROR >"$out" 2>&1 || true
      requests=$(python3 -c 'import csv,sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["Name"] == "Aggregated"]
print(rows[0]["Request Count"] if rows else 0)' "$BENCH_TMP/locust.${rep}_stats.csv" 2>/dev/null || echo 0)
    fi
    read -r user sys < <(tail -1 "$time_file")
    cpu_s=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
    cpu_us=$(cpu_us_per_request "$cpu_s" "$requests")
    rps=$(awk -v n="$requests" -v d="$seconds" 'BEGIN { printf "%.1f", n / d }')
    RPS[$tool]+="$rps "
    CPU_US[$tool]+="$cpu_us "
    printf '%-7s run %d %10s req/s %10s req  cpu %7ss  %9s us/req\n' "$tool" "$rep" "$rps" "$requests" "$cpu_s" "$cpu_us"
  done
done

echo
echo "## medians over $REPEATS runs (ratio = locust / pacer)"
echo
echo "| client | req/s | CPU us/req |"
echo "|---|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
{
  p_rps=$(median ${RPS[pacer]}); l_rps=$(median ${RPS[locust]})
  p_cpu=$(median ${CPU_US[pacer]}); l_cpu=$(median ${CPU_US[locust]})
}
echo "| pacer (-t1) | $p_rps | $p_cpu |"
echo "| Locust (one process) | $l_rps | $l_cpu |"
echo
echo "CPU per request, locust/pacer: $(ratio "$l_cpu" "$p_cpu") (goal: >= 50)"
