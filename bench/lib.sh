# shellcheck shell=bash disable=SC2034  # sets variables for the scripts that source it
# Shared helpers for the bench/ scripts (compare_wrk, compare_tls, compare_serve,
# compare_h2load, compare_lua, compare_floor, syscalls_per_request). Sourced, not run. Owns: the
# temp dir, the loopback servers (nginx with a 100-byte file, `pacer serve`), one
# bounded client run under GNU time, parsing of wrk-format output, and the
# interleaved pacer/wrk measurement with its table of medians. Every process started here
# is recorded in BENCH_PIDS and stopped by bench_cleanup (installed as an EXIT trap).
# Network: 127.0.0.1 only.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PACER=${PACER:-$BENCH_ROOT/build/release/pacer}
FLOOR=${FLOOR:-$BENCH_ROOT/build/release/bench/floor_client}
WRK=${WRK:-wrk}
NGINX=${NGINX:-nginx}
GNU_TIME=${GNU_TIME:-/usr/bin/time}
DURATION=${DURATION:-5s}
REPEATS=${REPEATS:-3}
BODY_BYTES=100
BENCH_PIDS=()
PACER_EXTRA_ARGS=()  # flags for pacer runs only (compare_tls.sh: -k, as wrk never verifies)

bench_die() { echo "error: $*" >&2; exit 1; }

# Duration as wrk takes it (5s, 500ms, 1m, bare seconds) -> whole seconds, rounded up.
duration_s() {
  local d=$1
  case $d in
    *ms) echo $(( (${d%ms} + 999) / 1000 )) ;;
    *s) echo "${d%s}" ;;
    *m) echo $(( ${d%m} * 60 )) ;;
    *h) echo $(( ${d%h} * 3600 )) ;;
    *) echo "$d" ;;
  esac
}

bench_require() {
  [[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
  command -v "$WRK" >/dev/null || bench_die "wrk not found (apt-get install wrk)"
  command -v "$NGINX" >/dev/null || bench_die "nginx not found (apt-get install nginx)"
  [[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
  [[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
  RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))  # hard cap for one client run
}

bench_cleanup() {
  local pid
  for pid in "${BENCH_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${BENCH_PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  [[ -n ${BENCH_TMP:-} && -d $BENCH_TMP ]] && rm -rf "$BENCH_TMP"
}

bench_setup() {
  BENCH_TMP=$(mktemp -d /tmp/pacer-bench.XXXXXX)
  chmod 755 "$BENCH_TMP"  # nginx workers run as nobody when started by root
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
}

# Raises the soft fd limit to the hard limit; servers started afterwards inherit it.
raise_fd_limit() {
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  FD_LIMIT=$(ulimit -n)
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits (at most 10 s) until something accepts on 127.0.0.1:$1.
wait_for_port() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# start_nginx [MODE]: nginx, one worker, serving a BODY_BYTES file, keep-alive
# without a request limit. MODE: plain (default), ssl (needs CERT_DIR with
# cert.pem and key.pem) or h2c (HTTP/2 with prior knowledge). Sets NGINX_PID,
# NGINX_URL.
start_nginx() {
  local mode=${1:-plain} dir port listen_extra="" server_extra="" http_extra="" scheme=http
  dir=$BENCH_TMP/nginx-$mode
  case $mode in
    plain) ;;
    ssl) listen_extra=" ssl" scheme=https
         server_extra="ssl_certificate $CERT_DIR/cert.pem; ssl_certificate_key $CERT_DIR/key.pem;" ;;
    h2c) listen_extra=" http2" http_extra="http2_max_concurrent_streams 1000;" ;;
    *) bench_die "start_nginx: unknown mode $mode (plain, ssl, h2c)" ;;
  esac
  mkdir -p "$dir/root" && chmod 755 "$dir" "$dir/root"
  head -c "$BODY_BYTES" /dev/zero | tr '\0' 'x' >"$dir/root/index.html"
  port=$(free_port)
  cat >"$dir/nginx.conf" <<CONF
daemon off;
worker_processes 1;
worker_rlimit_nofile 30000;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 20000; }
http {
  access_log off;
  keepalive_requests 100000000;
  $http_extra
  server {
    listen 127.0.0.1:$port$listen_extra backlog=16384;
    $server_extra
    root $dir/root;
  }
}
CONF
  "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
  NGINX_PID=$!
  BENCH_PIDS+=("$NGINX_PID")
  wait_for_port "$port" || bench_die "nginx ($mode) did not start: $(cat "$dir/error.log" "$dir/stdout.log")"
  NGINX_URL="$scheme://127.0.0.1:$port/index.html"
}

# Starts `pacer serve -t 1` on a free port. Sets SERVE_PID, SERVE_URL.
start_pacer_serve() {
  local log=$BENCH_TMP/serve.log port=
  "$PACER" serve --listen 127.0.0.1:0 -t 1 >"$log" 2>&1 &
  SERVE_PID=$!
  BENCH_PIDS+=("$SERVE_PID")
  for _ in $(seq 100); do
    port=$(grep -o '127\.0\.0\.1:[0-9]*' "$log" 2>/dev/null | head -1 | cut -d: -f2 || true)
    [[ -n $port ]] && break
    sleep 0.1
  done
  if [[ -z $port ]] || ! wait_for_port "$port"; then
    bench_die "pacer serve did not start: $(cat "$log")"
  fi
  SERVE_URL="http://127.0.0.1:$port/bytes/$BODY_BYTES"
}

# Sum of utime+stime (clock ticks) of a process and its direct children (nginx
# master + worker). Used for server CPU per request.
proc_tree_ticks() {
  local pid total=0 t
  for pid in "$1" $(pgrep -P "$1" 2>/dev/null); do
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$(( total + t ))
  done
  echo "$total"
}

# descendant_named PID COMM: PID or its first descendant (3 levels down at most)
# whose command name is COMM; nothing if none (yet).
descendant_named() {
  local pid=$1 _
  for _ in 1 2 3 4; do
    [[ -z $pid ]] && return 0
    if [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]]; then echo "$pid"; return 0; fi
    pid=$(pgrep -P "$pid" | head -1 || true)
  done
}

# started_client PID BIN: the process running BIN under PID (a client started under
# timeout and GNU time), waiting up to 5 s for it to start; nothing if it did not.
started_client() {
  local comm child="" _
  comm=$(basename "$2" | cut -c1-15)
  for _ in $(seq 50); do
    child=$(descendant_named "$1" "$comm")
    [[ -n $child ]] && break
    sleep 0.1
  done
  echo "$child"
}

# sample_private PID FILE: until PID's process is gone, reads its private memory
# (Private_Clean + Private_Dirty of /proc/PID/smaps_rollup: the pages no other
# process shares, so the memory the run itself costs) every 0.2 s, and writes the
# largest sample (KB) to FILE.
sample_private() {
  local pid=$1 file=$2 kb largest=0
  while kill -0 "$pid" 2>/dev/null; do
    kb=$(awk '/^Private_(Clean|Dirty):/ { sum += $2 } END { print sum + 0 }' "/proc/$pid/smaps_rollup" 2>/dev/null || echo 0)
    (( kb > largest )) && largest=$kb
    sleep 0.2
  done
  echo "$largest" >"$file"
}

# run_client TOOL(pacer|pacer-uring|pacer-epoll|base-uring|base-epoll|wrk|floor|floor-stamps) THREADS CONNECTIONS URL
# (pacer: its default engine, --io auto; pacer-uring, pacer-epoll: --io uring, --io epoll;
# base-uring, base-epoll: the same with $PACER_BASE, another build to compare against)
# Runs one client under GNU time, bounded by RUN_BOUND_S; the array
# RUN_EXTRA_ARGS (optional, e.g. -s script.lua) goes before the URL. Sets RUN_RPS,
# RUN_REQUESTS, RUN_CPU_S (user+sys), RUN_RSS_KB, RUN_ERRORS, RUN_OUT (the output file);
# with SAMPLE_PRIVATE=1 also RUN_PRIVATE_KB (sample_private's largest sample).
RUN_SEQ=0
# Waits (up to 10 s) until no socket to url's port is left but in TIME_WAIT, then
# ends those (`ss -K`, the kernel's SOCK_DESTROY; a no-op where the kernel lacks it),
# so that every run starts from the same sockets: none. A client that exits with its
# connections open may leave their teardown to the kernel after it (io_uring: the
# ring's exit work drops its sockets in a kernel thread), and the FIN exchanges of
# 10,000 connections would run inside the next client's measurement; and each run at
# -c10000 leaves 10,000 ports in TIME_WAIT for 60 s, through which the next clients'
# connects search for a free port (`perf`: `__inet_hash_connect` was a quarter of
# pacer-epoll's CPU after three such runs) and the evidence's port count walks
# (issue 46: pacer-epoll, always run right after pacer-uring, measured 1.36-1.6x the
# floor client at -c10000, and 0.9 when run first).
settle_sockets() {
  local port=${1#*://}
  port=${port#*:}
  port=${port%%/*}
  [[ $port =~ ^[0-9]+$ ]] || return 0
  local i
  for i in $(seq 100); do
    [[ $(ss -Htn state connected exclude time-wait "( dport = :$port )" 2>/dev/null | wc -l) -eq 0 ]] && break
    sleep 0.1
  done
  ss -K -Htn state time-wait "( dport = :$port )" >/dev/null 2>&1 || true
}

run_client() {
  local tool=$1 threads=$2 conns=$3 url=$4 bin user sys
  local extra=()
  case $tool in
    pacer) bin=$PACER; extra=(${PACER_EXTRA_ARGS[@]+"${PACER_EXTRA_ARGS[@]}"}) ;;
    pacer-uring|pacer-epoll)
      bin=$PACER; extra=(--io "${tool#pacer-}" ${PACER_EXTRA_ARGS[@]+"${PACER_EXTRA_ARGS[@]}"}) ;;
    base-uring|base-epoll)
      bin=$PACER_BASE; extra=(--io "${tool#base-}" ${PACER_EXTRA_ARGS[@]+"${PACER_EXTRA_ARGS[@]}"}) ;;
    wrk) bin=$WRK ;;
    floor) bin=$FLOOR ;;
    floor-stamps) bin=$FLOOR; extra=(--stamps) ;;
    *) bench_die "unknown tool $tool" ;;
  esac
  RUN_SEQ=$(( RUN_SEQ + 1 ))
  RUN_OUT=$BENCH_TMP/run.$RUN_SEQ.$tool.out
  local time_file=$BENCH_TMP/run.$RUN_SEQ.$tool.time
  timeout -k 5 "$RUN_BOUND_S" "$GNU_TIME" -f '%U %S %M' -o "$time_file" \
    "$bin" "${extra[@]}" -t"$threads" -c"$conns" -d"$DURATION" ${RUN_EXTRA_ARGS[@]+"${RUN_EXTRA_ARGS[@]}"} "$url" >"$RUN_OUT" 2>&1 &
  local run_pid=$! client=""
  RUN_PRIVATE_KB=""
  if [[ ${SAMPLE_PRIVATE:-0} == 1 ]]; then
    client=$(started_client "$run_pid" "$bin")
    [[ -n $client ]] && sample_private "$client" "$time_file.private"
  fi
  wait "$run_pid" || true
  settle_sockets "$url"
  [[ -n $client ]] && RUN_PRIVATE_KB=$(cat "$time_file.private" 2>/dev/null || true)
  parse_client_output "$RUN_OUT"
  read -r user sys RUN_RSS_KB < <(tail -1 "$time_file" 2>/dev/null || echo "0 0 0")
  RUN_CPU_S=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
}

# Reads wrk-format output (wrk and pacer print the same lines). Sets RUN_RPS,
# RUN_REQUESTS, RUN_ERRORS (the non-zero error counters, e.g. "timeout=12
# non2xx=3", or "0"). wrk: "Socket errors:" + "Non-2xx or 3xx responses:";
# pacer: "Errors:" (connect/read/write/timeout as wrk, plus parse and status).
parse_client_output() {
  RUN_RPS=$(awk '/^Requests\/sec:/ { print $2 }' "$1")
  # Anchored: pacer's header line "... (N requests in flight at most)" must not match.
  RUN_REQUESTS=$(awk '/^ *[0-9]+ requests in / { print $1; exit }' "$1")
  # pacer prints both lines when there are socket errors; its "Errors:" line wins.
  RUN_ERRORS=$(awk 'function nonzero(line,   n, i, parts, kv, out) {
                      n = split(line, parts, /, */)
                      for (i = 1; i <= n; i++) { split(parts[i], kv, " "); if (kv[2] + 0 > 0) out = out kv[1] "=" kv[2] " " }
                      return out
                    }
                    /^ *Socket errors:/ { sub(/^ *Socket errors: */, ""); sock = nonzero($0) }
                    /^Errors:/ { sub(/^Errors: */, ""); own = nonzero($0); has_own = 1 }
                    /^ *Non-2xx or 3xx responses:/ { non2xx = "non2xx=" $NF " " }
                    END { out = (has_own ? own : sock)
                          if (!has_own) out = out non2xx
                          sub(/ $/, "", out); print (out == "" ? "0" : out) }' "$1")
  RUN_RPS=${RUN_RPS:-0}
  RUN_REQUESTS=${RUN_REQUESTS:-0}
}

# CPU microseconds per request from seconds and a request count ("n/a" if none).
cpu_us_per_request() {
  awk -v c="$1" -v n="$2" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "n/a" }'
}

# median of the arguments (numbers); "n/a" if none are numeric.
median() {
  printf '%s\n' "$@" | { grep -E '^[0-9.]+$' || true; } | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# a/b to two decimals, "n/a" if either is not a positive number.
ratio() {
  awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "n/a" }'
}

# The median over rounds of a/b, round by round: $1 and $2 are space-separated
# samples in round order (the i-th of each from the same round of an interleaved
# run), so what drifts between rounds (the server's speed, the machine's other
# load) cancels in each ratio. To two decimals; "n/a" if no round has both.
round_ratio_median() {
  local -a a b
  read -r -a a <<<"$1"
  read -r -a b <<<"$2"
  local i out=()
  for i in "${!a[@]}"; do
    out+=("$(ratio "${a[$i]}" "${b[$i]:-}")")
  done
  median "${out[@]}"
}

machine_summary() {
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "versions: $("$PACER" --version 2>&1 | head -1), wrk $(dpkg-query -W -f='${Version}' wrk 2>/dev/null || echo '?'), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //')"
}

# After run_client: when the run counted no request, prints its output (indented)
# so the table's zero can be explained.
show_output_if_empty() {
  if [[ $RUN_REQUESTS == 0 ]]; then
    echo "  (no requests counted; output follows)"; sed 's/^/  | /' "$RUN_OUT"
  fi
}

# measure_clients SERVER NAME THREADS CONNECTIONS URL TOOL...: REPEATS rounds of
# one run per tool, interleaved; appends each run's figures to the caller's
# associative arrays RPS, CPU_US and RSS_KB (and PRIVATE_KB, with SAMPLE_PRIVATE=1)
# under "SERVER|NAME|TOOL" and prints a line per run.
# The order of the tools rotates by one each repeat: a run leaves its connections'
# ports in TIME_WAIT for a minute, and at -c10000 the next clients' connects search
# a fuller ephemeral range (issue 46: the same client measured 13-14 us a request
# run first or second, 18-20 run third or fourth), so a fixed order would charge
# the later tools for the earlier ones' sockets.
measure_clients() {
  local server=$1 name=$2 threads=$3 conns=$4 url=$5 rep tool cpu_us key i
  shift 5
  local tools=("$@") order
  for rep in $(seq "$REPEATS"); do
    order=()
    for ((i = 0; i < ${#tools[@]}; i++)); do order+=("${tools[(i + rep - 1) % ${#tools[@]}]}"); done
    for tool in "${order[@]}"; do
      run_client "$tool" "$threads" "$conns" "$url"
      cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
      key="$server|$name|$tool"
      RPS[$key]+="$RUN_RPS "
      CPU_US[$key]+="$cpu_us "
      RSS_KB[$key]+="$RUN_RSS_KB "
      [[ -n $RUN_PRIVATE_KB ]] && PRIVATE_KB[$key]+="$RUN_PRIVATE_KB "
      printf '%-12s %-14s run %d %-12s %10s req/s %10s req  cpu %6ss  %8s us/req  rss %7s KB%s  errors %s\n' \
        "$server" "$name" "$rep" "$tool" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_RSS_KB" \
        "${RUN_PRIVATE_KB:+  private $RUN_PRIVATE_KB KB}" "$RUN_ERRORS"
      show_output_if_empty
    done
  done
}

# The pacer tools for the I/O engines in $ENGINES ("uring epoll" by default; a
# kernel without io_uring: "epoll"), e.g. "pacer-uring pacer-epoll". With
# PACER_BASE (another pacer binary, e.g. the build before a change) each engine
# runs that binary too, interleaved: "pacer-uring base-uring pacer-epoll base-epoll".
pacer_engine_tools() {
  local engine out=()
  [[ -z ${PACER_BASE:-} || -x $PACER_BASE ]] || bench_die "PACER_BASE=$PACER_BASE is not an executable"
  for engine in ${ENGINES:-uring epoll}; do
    case $engine in
      uring|epoll) out+=("pacer-$engine"); [[ -n ${PACER_BASE:-} ]] && out+=("base-$engine") ;;
      *) bench_die "ENGINES: unknown engine '$engine' (uring, epoll)" ;;
    esac
  done
  echo "${out[*]}"
}

# start_server SERVER: the plain-HTTP servers (nginx, pacer-serve); sets SERVER_URL.
# A script with other servers (compare_tls.sh) defines its own after sourcing this.
start_server() {
  case $1 in
    nginx) start_nginx plain; SERVER_URL=$NGINX_URL ;;
    pacer-serve) start_pacer_serve; SERVER_URL=$SERVE_URL ;;
    *) bench_die "unknown server $1 (nginx, pacer-serve)" ;;
  esac
}

# measure_cases SERVER URL TOOL...: for each "threads:conns" of $CASES,
# measure_clients with the TOOLs against URL; appends "SERVER|-tT -cC" to the
# caller's ROWS. A case needing more file descriptors than the hard limit allows
# is skipped.
FD_HEADROOM=100  # listening socket, epoll, stdio, … beyond one fd per connection
measure_cases() {
  local server=$1 url=$2 case_spec threads conns name
  shift 2
  for case_spec in $CASES; do
    threads=${case_spec%%:*}
    conns=${case_spec##*:}
    name="-t$threads -c$conns"
    if (( conns + FD_HEADROOM > FD_LIMIT )); then
      echo "skip $name: fd hard limit $FD_LIMIT is below $((conns + FD_HEADROOM)) (raise it with ulimit -Hn as root)"
      continue
    fi
    ROWS+=("$server|$name")
    measure_clients "$server" "$name" "$threads" "$conns" "$url" "$@"
  done
}

# measure_all_cases TOOL...: measure_cases for each server of $SERVERS, started by
# start_server SERVER (which sets SERVER_URL).
measure_all_cases() {
  local server
  for server in $SERVERS; do
    start_server "$server"
    echo "## server: $server ($SERVER_URL)"
    measure_cases "$server" "$SERVER_URL" "$@"
    echo
  done
}

# print_engines_wrk_medians HEADING TOOL...: per row of ROWS, the medians of each
# TOOL (pacer-uring, pacer-epoll, ...) and wrk side by side: req/s, CPU us/request
# with its ratio to wrk, peak RSS with its ratio to wrk.
print_engines_wrk_medians() {
  local heading=$1 row tool head="" rule="" line w_cpu w_rss cpu rss
  shift
  echo "## $heading"
  echo
  for tool in "$@"; do head+=" $tool req/s | $tool CPU us/req | $tool/wrk CPU | $tool RSS KB | $tool/wrk RSS |"; rule+="---:|---:|---:|---:|---:|"; done
  echo "| server | case |$head wrk req/s | wrk CPU us/req | wrk RSS KB |"
  echo "|---|---|${rule}---:|---:|---:|"
  for row in "${ROWS[@]}"; do
    # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
    { w_cpu=$(median ${CPU_US[$row|wrk]}); w_rss=$(median ${RSS_KB[$row|wrk]}); }
    line="| ${row%%|*} | ${row#*|} |"
    for tool in "$@"; do
      # shellcheck disable=SC2086
      { cpu=$(median ${CPU_US[$row|$tool]}); rss=$(median ${RSS_KB[$row|$tool]}); line+=" $(median ${RPS[$row|$tool]}) |"; }
      line+=" $cpu | $(ratio "$cpu" "$w_cpu") | $rss | $(ratio "$rss" "$w_rss") |"
    done
    # shellcheck disable=SC2086
    echo "$line $(median ${RPS[$row|wrk]}) | $w_cpu | $w_rss |"
  done
}
