#!/usr/bin/env bash
# pacer --http2 vs h2load, same h2c server, same threads, connections and streams
# per connection (pacer -t T -c C --streams S; h2load -t T -c C -m S), same
# duration, runs interleaved (pacer, h2load, pacer, h2load…) so drift on a shared
# machine hits both alike. For each run: requests/sec and client CPU time per
# request (user+sys from GNU time). Then per case the medians and the ratios
# pacer/h2load, as a markdown table. Goal: CPU per request <= 0.85 of h2load's.
# "by round": the median of the ratios round by round (bench/lib.sh
# round_ratio_median), which the server's drift between rounds does not move as
# it moves each tool's median. Beside them, the floor (bench/floor_client.cc
# --http2 --stamps, `floor-h2`): the least a client can do per request for the
# same h2c traffic (one read per readable edge, one write per batch, frames
# walked by their headers, no HPACK decoding, receive stamps read as pacer reads
# them), so floor-h2/h2load is how far below h2load any client can go, and
# pacer/floor-h2 how far pacer is from the floor.
#
# Servers (started here, stopped on exit): nginx with one worker and `listen …
# http2` (prior knowledge, keepalive_requests raised so no GOAWAY interrupts a
# run), and nghttpd --no-tls (one thread). Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_h2load.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), H2LOAD (h2load),
#        ENGINES ("uring epoll": pacer once per I/O engine, pacer-uring and pacer-epoll),
#        PACER_BASE (a base build, run beside as base-uring and base-epoll: before/after in one run),
#        SERVERS ("nginx-h2c nghttpd"), CASES ("1:1:1 1:10:10 2:100:10", threads:conns:streams),
#        FLOOR (build/release/bench/floor_client)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

H2LOAD=${H2LOAD:-h2load}
NGHTTPD=${NGHTTPD:-nghttpd}
SERVERS=${SERVERS:-"nginx-h2c nghttpd"}
CASES=${CASES:-"1:1:1 1:10:10 2:100:10"}

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $FLOOR ]] || bench_die "$FLOOR not built: cmake --preset release && cmake --build --preset release"
command -v "$H2LOAD" >/dev/null || bench_die "h2load not found (apt-get install nghttp2-client)"
command -v "$NGHTTPD" >/dev/null || bench_die "nghttpd not found (apt-get install nghttp2-server)"
command -v "$NGINX" >/dev/null || bench_die "nginx not found (apt-get install nginx)"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup
raise_fd_limit

# nghttpd --no-tls serving a BODY_BYTES file. Sets H2_URL.
start_nghttpd() {
  local dir=$BENCH_TMP/nghttpd port
  mkdir -p "$dir/root"
  head -c "$BODY_BYTES" /dev/zero | tr '\0' 'x' >"$dir/root/index.html"
  port=$(free_port)
  "$NGHTTPD" --no-tls -d "$dir/root" "$port" >"$dir/log" 2>&1 &
  BENCH_PIDS+=("$!")
  wait_for_port "$port" || bench_die "nghttpd did not start: $(cat "$dir/log")"
  H2_URL="http://127.0.0.1:$port/index.html"
}

# run_h2_client TOOL(pacer-uring|pacer-epoll|base-uring|base-epoll|h2load|floor-h2) THREADS CONNECTIONS STREAMS URL: sets RUN_RPS,
# RUN_REQUESTS, RUN_CPU_S, RUN_ERRORS, RUN_OUT.
RUN_SEQ=0
run_h2_client() {
  local tool=$1 threads=$2 conns=$3 streams=$4 url=$5 user sys rss
  RUN_SEQ=$(( RUN_SEQ + 1 ))
  RUN_OUT=$BENCH_TMP/run.$RUN_SEQ.$tool.out
  local time_file=$BENCH_TMP/run.$RUN_SEQ.$tool.time
  local cmd
  if [[ $tool == pacer-* || $tool == base-* ]]; then
    local bin=$PACER
    [[ $tool == base-* ]] && bin=$PACER_BASE
    cmd=("$bin" --io "${tool#*-}" --http2 --streams "$streams" -t"$threads" -c"$conns" -d"$DURATION" "$url")
  elif [[ $tool == floor-h2 ]]; then
    cmd=("$FLOOR" --http2 --stamps -m"$streams" -t"$threads" -c"$conns" -d"$(duration_s "$DURATION")" "$url")
  else
    cmd=("$H2LOAD" -t"$threads" -c"$conns" -m"$streams" -D"$(duration_s "$DURATION")" "$url")
  fi
  timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S %M' -o "$time_file" "${cmd[@]}" >"$RUN_OUT" 2>&1 || true
  if [[ $tool != h2load ]]; then
    parse_client_output "$RUN_OUT"
  else
    # "finished in 5.00s, 14364.00 req/s, …" and "requests: N total, … N succeeded, F failed, E errored, T timeout"
    RUN_RPS=$(awk '/^finished in/ { gsub(",", ""); print $4 }' "$RUN_OUT")
    RUN_REQUESTS=$(awk '/^requests:/ { print $8 }' "$RUN_OUT")
    RUN_ERRORS=$(awk '/^requests:/ { e = $10 + $12 + $14; print (e > 0 ? "failed=" $10 " errored=" $12 " timeout=" $14 : "0") }' "$RUN_OUT")
    RUN_RPS=${RUN_RPS:-0}
    RUN_REQUESTS=${RUN_REQUESTS:-0}
  fi
  read -r user sys rss < <(tail -1 "$time_file" 2>/dev/null || echo "0 0 0")
  RUN_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
}

echo "# pacer --http2 vs h2load: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: $("$PACER" --version 2>&1 | head -1), $("$H2LOAD" --version 2>&1 | head -1), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
echo "settings: duration $DURATION, $REPEATS repeats, interleaved pacer engines/h2load/floor-h2; h2c (prior knowledge); ${BODY_BYTES}-byte body"
echo "no CPU pinning (no taskset): clients and server share all $(nproc) cores"
echo

read -r -a PACER_TOOLS <<<"$(pacer_engine_tools)"
declare -A RPS CPU_US
ROWS=()
for server in $SERVERS; do
  case $server in
    nginx-h2c) start_nginx h2c; H2_URL=$NGINX_URL ;;
    nghttpd) start_nghttpd ;;
    *) bench_die "unknown server $server (nginx-h2c, nghttpd)" ;;
  esac
  echo "## server: $server ($H2_URL)"
  for case_spec in $CASES; do
    IFS=: read -r threads conns streams <<<"$case_spec"
    name="-t$threads -c$conns streams $streams"
    ROWS+=("$server|$name")
    for rep in $(seq "$REPEATS"); do
      for tool in "${PACER_TOOLS[@]}" h2load floor-h2; do
        run_h2_client "$tool" "$threads" "$conns" "$streams" "$H2_URL"
        cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
        key="$server|$name|$tool"
        RPS[$key]+="$RUN_RPS "
        CPU_US[$key]+="$cpu_us "
        printf '%-10s %-24s run %d %-11s %10s req/s %10s req  cpu %6ss  %8s us/req  errors %s\n' \
          "$server" "$name" "$rep" "$tool" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_ERRORS"
        show_output_if_empty
      done
    done
  done
  echo
done

echo "## medians over $REPEATS runs (ratios to h2load, goal: CPU/req <= 0.85; and to the floor)"
echo
head="| server | case |" rule="|---|---|"
for tool in "${PACER_TOOLS[@]}"; do head+=" $tool req/s | $tool CPU us/req | $tool/h2load CPU | $tool/h2load by round | $tool/floor-h2 CPU |"; rule+="---:|---:|---:|---:|---:|"; done
echo "$head h2load req/s | h2load CPU us/req | floor-h2 CPU us/req | h2load/floor-h2 CPU | floor-h2/h2load CPU |"
echo "${rule}---:|---:|---:|---:|---:|"
for row in "${ROWS[@]}"; do
  # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
  { h_rps=$(median ${RPS[$row|h2load]}); h_cpu=$(median ${CPU_US[$row|h2load]}); f_cpu=$(median ${CPU_US[$row|floor-h2]}); }
  line="| ${row%%|*} | ${row#*|} |"
  for tool in "${PACER_TOOLS[@]}"; do
    # shellcheck disable=SC2086
    { p_rps=$(median ${RPS[$row|$tool]}); p_cpu=$(median ${CPU_US[$row|$tool]}); }
    line+=" $p_rps | $p_cpu | $(ratio "$p_cpu" "$h_cpu") | $(round_ratio_median "${CPU_US[$row|$tool]}" "${CPU_US[$row|h2load]}") | $(ratio "$p_cpu" "$f_cpu") |"
  done
  echo "$line $h_rps | $h_cpu | $f_cpu | $(ratio "$h_cpu" "$f_cpu") | $(ratio "$f_cpu" "$h_cpu") |"
done
