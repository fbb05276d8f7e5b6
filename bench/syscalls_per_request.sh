#!/usr/bin/env bash
# Syscalls, context switches and CPU (perf task-clock) per request for pacer and wrk against nginx (one worker, a 100-byte file),
# counted by `perf stat` on syscall tracepoints (low overhead: the client runs at
# nearly full speed, so batching per epoll_wait is as in a normal run). Optionally
# (STRACE=1) also prints the `strace -c -f` summary of one run per tool for cases
# up to 1000 connections; strace slows the client several times, so its counts of
# epoll_wait per request differ, and at -c10000 connecting alone fills the run.
# Traffic: 127.0.0.1 only; nginx is stopped on exit.
#
# Usage: bench/syscalls_per_request.sh
#   env: DURATION (5s), CASES ("1:50 1:10000"), STRACE (0), PACER, WRK,
#        ENGINES ("uring epoll": pacer once per I/O engine, pacer-uring and pacer-epoll)
set -euo pipefail
DURATION=${DURATION:-5s}
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CASES=${CASES:-"1:50 1:10000"}
STRACE=${STRACE:-0}
SYSCALLS=(read write sendto recvfrom recvmsg readv writev epoll_wait epoll_pwait epoll_pwait2 epoll_ctl io_uring_enter connect close futex)

bench_require
command -v perf >/dev/null || bench_die "perf not found (apt-get install linux-perf)"
bench_setup
raise_fd_limit
start_nginx

events=task-clock,context-switches,raw_syscalls:sys_enter
for s in "${SYSCALLS[@]}"; do events+=",syscalls:sys_enter_$s"; done

echo "# syscalls per request, server nginx (1 worker): $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "counted with perf stat on syscall tracepoints; duration $DURATION; no CPU pinning"
echo

header="| case | tool | requests | CPU us/req | ctx switches/req | all syscalls/req |"
rule="|---|---|---:|---:|---:|---:|"
for s in "${SYSCALLS[@]}"; do header+=" $s |"; rule+="---:|"; done
ROWS=()

for case_spec in $CASES; do
  threads=${case_spec%%:*}
  conns=${case_spec##*:}
  if (( conns + 100 > FD_LIMIT )); then
    echo "skip -t$threads -c$conns: fd limit $FD_LIMIT too low"
    continue
  fi
  for tool in $(pacer_engine_tools) wrk; do
    io=()
    if [[ $tool == pacer-* ]]; then bin=$PACER; io=(--io "${tool#pacer-}"); else bin=$WRK; fi
    out=$BENCH_TMP/sys.$tool.$conns.out
    stat=$BENCH_TMP/sys.$tool.$conns.perf
    timeout -k 5 "$RUN_BOUND_S" perf stat -x, -o "$stat" -e "$events" -- \
      "$bin" ${io[@]+"${io[@]}"} -t"$threads" -c"$conns" -d"$DURATION" "$NGINX_URL" >"$out" 2>&1 || true
    parse_client_output "$out"
    row="| -t$threads -c$conns | $tool | $RUN_REQUESTS |"
    task_ms=$(awk -F, '$3 == "task-clock" { print $1 }' "$stat")
    row+=" $(cpu_us_per_request "$(awk -v ms="${task_ms:-0}" 'BEGIN { print ms / 1000 }')" "$RUN_REQUESTS") |"
    for ev in context-switches raw_syscalls:sys_enter "${SYSCALLS[@]/#/syscalls:sys_enter_}"; do
      n=$(awk -F, -v ev="$ev" '$3 == ev { print $1 }' "$stat")
      row+=" $(awk -v n="${n:-0}" -v r="$RUN_REQUESTS" 'BEGIN { if (r > 0) printf "%.3f", n / r; else print "n/a" }') |"
    done
    ROWS+=("$row")
    echo "-t$threads -c$conns $tool: $RUN_REQUESTS requests, $RUN_RPS req/s, errors $RUN_ERRORS"
    if [[ $STRACE == 1 ]] && (( conns <= 1000 )); then
      trace=$BENCH_TMP/sys.$tool.$conns.strace
      timeout -k 5 "$RUN_BOUND_S" strace -f -c -o "$trace" \
        "$bin" ${io[@]+"${io[@]}"} -t"$threads" -c"$conns" -d"$DURATION" "$NGINX_URL" >"$out" 2>&1 || true
      parse_client_output "$out"
      echo "  strace -c -f ($RUN_REQUESTS requests under strace):"
      head -12 "$trace" | sed 's/^/    /'
    fi
  done
done

echo
echo "$header"
echo "$rule"
printf '%s\n' "${ROWS[@]}"
