#!/usr/bin/env bash
# pacer's memory, two parts (issue 18 goals):
#   peak: peak RSS (GNU time's maximum resident set) of pacer (on each I/O engine
#         of $ENGINES, "uring epoll" by default) and wrk in the same
#         run, interleaved, for each threads:conns case (default -t1 -c50 and
#         -t1 -c10000), with medians and the ratio pacer/wrk. Goals: <= 1.00 at
#         -c50, <= 0.30 at -c10000. Beside it, each client's private memory
#         (the largest of samples of smaps_rollup every 0.2 s, lib.sh's
#         sample_private): RSS without the pages of shared libraries that
#         other processes map too.
#   flat: one open-model run of pacer at -R RATE for FLAT_DURATION (the first
#         argument; default 10m), its RSS (VmRSS) sampled every second; reports
#         the RSS at each minute and, after FLAT_SKIP (60s), the lowest, highest
#         and their spread, and whether every sample stays within 1 MiB of the
#         first one after FLAT_SKIP (goal: flat, +/- 1 MB after the first minute).
#
# Server (started here, stopped on exit): nginx with one worker serving a
# 100-byte file. Traffic: 127.0.0.1 only. The client peak RSS counts the pages of
# shared libraries it maps (libc, libcrypto, libstdc++ ...), as GNU time reports it.
#
# Usage: bench/memory.sh [FLAT_DURATION]
#   env: PARTS ("peak flat"), DURATION (5s, each peak run), REPEATS (3),
#        CASES ("1:50 1:10000", threads:conns), PACER (build/release/pacer), WRK (wrk),
#        FLAT_RATE (20000), FLAT_THREADS (2), FLAT_CONNECTIONS (100), FLAT_SKIP (60s)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PARTS=${PARTS:-"peak flat"}
CASES=${CASES:-"1:50 1:10000"}
FLAT_DURATION=${1:-${FLAT_DURATION:-10m}}
FLAT_RATE=${FLAT_RATE:-20000}
FLAT_THREADS=${FLAT_THREADS:-2}
FLAT_CONNECTIONS=${FLAT_CONNECTIONS:-100}
FLAT_SKIP=${FLAT_SKIP:-60s}

for part in $PARTS; do
  case $part in peak | flat) ;; *) bench_die "PARTS: unknown part '$part' (peak, flat)" ;; esac
done
[[ $FLAT_RATE =~ ^[1-9][0-9]*$ ]] || bench_die "FLAT_RATE must be a positive integer, got '$FLAT_RATE'"
[[ $(duration_s "$FLAT_DURATION") =~ ^[1-9][0-9]*$ ]] || bench_die "bad flat duration '$FLAT_DURATION' (e.g. 10m, 90s)"

bench_require
bench_setup
raise_fd_limit

# The peak part: measure_clients for pacer and wrk over $CASES; one table of RSS.
memory_peak() {
  local row tool p_kb w_kb line kind
  local -a tools
  read -ra tools <<<"$(pacer_engine_tools)"
  # shellcheck disable=SC2034  # CPU_US is filled by measure_clients (lib.sh)
  declare -gA RPS CPU_US RSS_KB PRIVATE_KB
  ROWS=()
  echo "## peak RSS and private memory, pacer (each I/O engine) and wrk interleaved ($REPEATS repeats, $DURATION each)"
  SAMPLE_PRIVATE=1 measure_cases nginx "$NGINX_URL" "${tools[@]}" wrk
  # RSS counts every page mapped, shared libraries' included; private memory the
  # pages no other process shares (its heap, stacks, buffers, written pages of
  # its binary and libraries): what running it costs the machine.
  for kind in RSS PRIVATE; do
    declare -n values="${kind}_KB"
    echo
    line="| case |"; for tool in "${tools[@]}"; do line+=" $tool ${kind,,} KB |"; done
    line+=" wrk ${kind,,} KB |"; for tool in "${tools[@]}"; do line+=" $tool/wrk |"; done
    echo "$line"
    line="|---|"; for _ in "${tools[@]}"; do line+="---:|---:|"; done; echo "$line---:|"
    for row in "${ROWS[@]}"; do
      # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
      w_kb=$(median ${values[$row|wrk]:-0})
      line="| ${row#*|} |"
      # shellcheck disable=SC2086
      for tool in "${tools[@]}"; do line+=" $(median ${values[$row|$tool]:-0}) |"; done
      line+=" $w_kb |"
      for tool in "${tools[@]}"; do
        # shellcheck disable=SC2086
        p_kb=$(median ${values[$row|$tool]:-0})
        line+=" $(ratio "$p_kb" "$w_kb") |"
      done
      echo "$line"
    done
    unset -n values
  done
}

# The flat part: one pacer run in the background, VmRSS read once a second.
memory_flat() {
  local seconds skip out samples pid t=0 rss
  seconds=$(duration_s "$FLAT_DURATION")
  skip=$(duration_s "$FLAT_SKIP")
  out=$BENCH_TMP/flat.out
  samples=$BENCH_TMP/flat.samples
  echo "## RSS over an open-model run: -t$FLAT_THREADS -c$FLAT_CONNECTIONS -R $FLAT_RATE -d ${seconds}s, sampled every second"
  timeout -k 5 $(( seconds + 60 )) "$GNU_TIME" -f '%M' -o "$BENCH_TMP/flat.time" \
    "$PACER" -t"$FLAT_THREADS" -c"$FLAT_CONNECTIONS" -R "$FLAT_RATE" -d "${seconds}s" "$NGINX_URL" >"$out" 2>&1 &
  pid=$!
  BENCH_PIDS+=("$pid")
  : >"$samples"
  # pacer runs under timeout and GNU time: sample pacer itself once a second until it exits.
  local child
  child=$(started_client "$pid" "$PACER")
  while [[ -n $child ]] && kill -0 "$child" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$child/status" 2>/dev/null || true)
    [[ -n $rss ]] && echo "$t $rss" >>"$samples"
    t=$(( t + 1 ))
    sleep 1
  done
  wait "$pid" 2>/dev/null || true
  parse_client_output "$out"
  echo "pacer: $RUN_RPS req/s, $RUN_REQUESTS requests, errors $RUN_ERRORS, peak RSS $(tail -1 "$BENCH_TMP/flat.time") KB"
  awk -v skip="$skip" '
    { at[NR] = $1; kb[NR] = $2 }
    $1 % 60 == 0 { printf "  at %4d s: %6d KB\n", $1, $2 }
    END {
      if (NR == 0) { print "no RSS samples (pacer did not run?)"; exit }
      n = 0
      for (i = 1; i <= NR; i++) {
        if (at[i] < skip) continue
        if (n == 0) { ref = kb[i]; lo = kb[i]; hi = kb[i] }
        if (kb[i] < lo) lo = kb[i]
        if (kb[i] > hi) hi = kb[i]
        dev = kb[i] - ref; if (dev < 0) dev = -dev
        if (dev > worst) worst = dev
        n++
      }
      printf "samples: %d (%d after %d s); last %d KB\n", NR, n, skip, kb[NR]
      if (n == 0) { print "no sample after the skip: run longer than FLAT_SKIP"; exit }
      printf "after %d s: first %d KB, lowest %d KB, highest %d KB, spread %d KB, largest deviation from the first %d KB (%s)\n",
             skip, ref, lo, hi, hi - lo, worst, worst <= 1024 ? "flat: within 1 MiB" : "NOT flat: beyond 1 MiB"
    }' "$samples"
  echo
}

echo "# pacer memory: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: fd limit $FD_LIMIT; server nginx (worker_processes 1, 100-byte file)"
echo
start_nginx plain
for part in $PARTS; do
  "memory_$part"
done
