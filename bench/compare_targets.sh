#!/usr/bin/env bash
# --targets against a single URL, against `pacer serve -t 1`, interleaved (single,
# targets, single, targets…) so drift on a shared machine hits both alike:
# - CPU per request with a 10-target file (round-robin, weighted and random; ten
#   named targets /bytes/100?t=N, so the responses are the single URL's) vs the
#   single URL. Goal: within 5 % (choosing a target is a counter, a table lookup
#   or a draw; the bytes are built before the run).
# - ten-heads: ten targets /bytes/100../bytes/109 whose response heads differ
#   (Content-Length): the parser's one known head then rarely matches and llhttp
#   parses each head, which costs more than choosing the target (shown apart).
# - RSS with 1000 request names at -t2 (a JSON Lines file of 1000 named targets)
#   vs the single URL: what per-name records and histograms cost.
# For each run: requests/sec, client CPU time per request (user+sys from GNU
# time), peak RSS; then the medians and the ratios targets/single.
#
# Usage: bench/compare_targets.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), THREADS (1),
#        CONNS (50), ORDERS ("round-robin weighted random")
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

THREADS=${THREADS:-1}
CONNS=${CONNS:-50}
ORDERS=${ORDERS:-"round-robin weighted random"}

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
raise_fd_limit
start_pacer_serve
BASE_URL=${SERVE_URL%/bytes/*}/

# Ten named targets with the single URL's response, weights 1..10 (used by the
# weighted order only); and ten whose response heads differ.
TEN=$BENCH_TMP/ten.jsonl
HEADS=$BENCH_TMP/heads.jsonl
for i in $(seq 0 9); do
  printf '{"url":"/bytes/100?t=%d","name":"target %d","weight":%d}\n' "$i" "$i" $(( i + 1 ))
  printf '{"url":"/bytes/10%d"}\n' "$i" >>"$HEADS"
done >"$TEN"
# A thousand names.
THOUSAND=$BENCH_TMP/thousand.jsonl
for i in $(seq 1 1000); do
  printf '{"url":"/bytes/100?n=%d","name":"endpoint %d"}\n' "$i" "$i"
done >"$THOUSAND"

echo "# --targets vs a single URL: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: $("$PACER" --version 2>&1 | head -1)"
echo "settings: -t$THREADS -c$CONNS (RSS case: -t2 -c$CONNS), duration $DURATION, $REPEATS repeats, interleaved"
echo "server: pacer serve -t 1; single URL ${BASE_URL}bytes/100; targets /bytes/100?t=N (ten-heads: /bytes/100../bytes/109)"
echo

declare -A RPS CPU_US RSS_KB
CASES=(single)
for order in $ORDERS; do CASES+=("ten-$order"); done
CASES+=(ten-heads single-t2 thousand-t2)

# run_case NAME: one client run of that case (sets the RUN_* figures).
run_case() {
  local threads=$THREADS
  RUN_EXTRA_ARGS=()
  case $1 in
    single) ;;
    ten-heads) RUN_EXTRA_ARGS=(--targets "$HEADS") ;;
    ten-*) RUN_EXTRA_ARGS=(--targets "$TEN" --targets-order "${1#ten-}") ;;
    single-t2) threads=2 ;;
    thousand-t2) threads=2; RUN_EXTRA_ARGS=(--targets "$THOUSAND") ;;
    *) bench_die "unknown case $1" ;;
  esac
  local url=${BASE_URL}bytes/100
  [[ $1 == ten-* || $1 == thousand-t2 ]] && url=$BASE_URL
  run_client pacer "$threads" "$CONNS" "$url"
}

for rep in $(seq "$REPEATS"); do
  for case_name in "${CASES[@]}"; do
    run_case "$case_name"
    cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
    RPS[$case_name]+="$RUN_RPS "
    CPU_US[$case_name]+="$cpu_us "
    RSS_KB[$case_name]+="$RUN_RSS_KB "
    printf '%-16s run %d %10s req/s %10s req  cpu %6ss  %8s us/req  rss %7s KB  errors %s\n' \
      "$case_name" "$rep" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_RSS_KB" "$RUN_ERRORS"
    show_output_if_empty
  done
done

echo
echo "## medians over $REPEATS runs (ratios against the single URL at the same -t)"
echo
echo "| case | req/s | CPU us/req | CPU ratio | RSS KB | RSS ratio |"
echo "|---|---:|---:|---:|---:|---:|"
# shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
{
  base_cpu=$(median ${CPU_US[single]}); base_rss=$(median ${RSS_KB[single]})
  base2_cpu=$(median ${CPU_US[single-t2]}); base2_rss=$(median ${RSS_KB[single-t2]})
  for case_name in "${CASES[@]}"; do
    cpu=$(median ${CPU_US[$case_name]}); rss=$(median ${RSS_KB[$case_name]})
    if [[ $case_name == *-t2 ]]; then b_cpu=$base2_cpu b_rss=$base2_rss; else b_cpu=$base_cpu b_rss=$base_rss; fi
    echo "| $case_name | $(median ${RPS[$case_name]}) | $cpu | $(ratio "$cpu" "$b_cpu") | $rss | $(ratio "$rss" "$b_rss") |"
  done
}
echo
echo "Goal: each ten-ORDER CPU ratio at most 1.05. ten-heads adds llhttp parsing each differing"
echo "response head. thousand-t2: the RSS 1000 names cost (a latency histogram per name per worker)."
