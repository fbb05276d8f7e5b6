#!/usr/bin/env bash
# HTTP/3 vs HTTP/2 over TLS, both from pacer, against the same Caddy: the client's
# CPU time per request of `--http3` beside `--http2` at the same -t/-c/--streams,
# runs interleaved (h3, h2, h3, h2…) so drift on a shared machine hits both alike.
# There is no packaged HTTP/3 load generator to compare against, so the reference
# is pacer's own HTTP/2 over TLS (OpenSSL) to the same server. Goal (issue 19):
# HTTP/3 at most 1.5x HTTP/2's CPU per request at -c 10 --streams 10.
#
# Server (started here, stopped on exit): Caddy 2.6 with `protocols h1 h2 h3`, a
# certificate from a throwaway private CA (openssl CLI), a file server with a
# 100-byte file; pacer verifies with --cacert. Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_h3.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), CASES ("1:10:10",
#        threads:connections:streams), CALLGRIND (1: also a short callgrind profile of
#        one --http3 run, top functions printed)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CASES=${CASES:-"1:10:10"}
CADDY=${CADDY:-caddy}
TOOLS=(h3 h2)

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
command -v "$CADDY" >/dev/null || bench_die "caddy not found (apt-get install caddy)"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
[[ $REPEATS =~ ^[1-9][0-9]*$ ]] || bench_die "REPEATS must be a positive integer, got '$REPEATS'"
RUN_BOUND_S=$(( $(duration_s "$DURATION") + 30 ))
bench_setup

# A private CA and a certificate for 127.0.0.1 and localhost.
CERTS=$BENCH_TMP/certs
mkdir -p "$CERTS"
EC=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
( cd "$CERTS"
  openssl req -x509 "${EC[@]}" -keyout ca.key -out ca.pem -days 1 -subj "/CN=pacer bench CA" 2>/dev/null
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >server.ext
  openssl req "${EC[@]}" -keyout server.key -out server.csr -subj "/CN=localhost" 2>/dev/null
  openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 1 \
    -extfile server.ext 2>/dev/null ) || bench_die "openssl could not make the certificates"

# Starts Caddy; sets CADDY_URL.
start_caddy() {
  local port dir=$BENCH_TMP/caddy
  mkdir -p "$dir/htdocs"
  head -c "$BODY_BYTES" /dev/zero | tr '\0' 'x' >"$dir/htdocs/100"
  port=$(free_port)
  cat >"$dir/Caddyfile" <<CADDY
{
	admin off
	auto_https off
	default_sni localhost
	servers {
		protocols h1 h2 h3
	}
}
https://127.0.0.1:$port {
	tls $CERTS/server.pem $CERTS/server.key
	root * $dir/htdocs
	file_server
}
CADDY
  HOME=$dir XDG_DATA_HOME=$dir/data XDG_CONFIG_HOME=$dir/config \
    "$CADDY" run --config "$dir/Caddyfile" --adapter caddyfile >"$dir/caddy.log" 2>&1 &
  BENCH_PIDS+=("$!")
  wait_for_port "$port" || bench_die "caddy did not start: $(tail -5 "$dir/caddy.log")"
  sleep 0.5  # the UDP listener comes up just after the TCP one
  CADDY_URL="https://127.0.0.1:$port/100"
}

# run_h TOOL(h3|h2) THREADS CONNECTIONS STREAMS: one pacer run under GNU time (lib.sh's run_client).
run_h() {
  local tool=$1 threads=$2 conns=$3 streams=$4
  PACER_EXTRA_ARGS=("--http${tool#h}" --cacert "$CERTS/ca.pem" --streams "$streams")
  run_client pacer "$threads" "$conns" "$CADDY_URL"
}

start_caddy
echo "# pacer --http3 vs --http2 (TLS) against Caddy: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "versions: $("$PACER" --version 2>&1 | head -1), $("$CADDY" version 2>&1 | head -1)"
echo "settings: duration $DURATION, $REPEATS repeats, interleaved ${TOOLS[*]}; body $BODY_BYTES B"
echo

declare -A CPU_US RPS
for case in $CASES; do
  IFS=: read -r threads conns streams <<<"$case"
  for rep in $(seq "$REPEATS"); do
    for tool in "${TOOLS[@]}"; do
      run_h "$tool" "$threads" "$conns" "$streams"
      cpu_us=$(cpu_us_per_request "$RUN_CPU_S" "$RUN_REQUESTS")
      CPU_US[$case|$tool]+="$cpu_us "
      RPS[$case|$tool]+="$RUN_RPS "
      printf '%-10s run %d %-3s %10s req/s %10s req  cpu %6ss  %8s us/req  rss %7s KB  errors %s\n' \
        "$case" "$rep" "$tool" "$RUN_RPS" "$RUN_REQUESTS" "$RUN_CPU_S" "$cpu_us" "$RUN_RSS_KB" "$RUN_ERRORS"
      show_output_if_empty
    done
  done
done

echo
echo "## medians over $REPEATS runs (t:c:streams): client CPU us/request"
echo
echo "| case | h3 us/req | h2 us/req | h3/h2 | h3 req/s | h2 req/s |"
echo "|---|---:|---:|---:|---:|---:|"
for case in $CASES; do
  # shellcheck disable=SC2086  # word-splitting the space-separated samples is intended
  h3=$(median ${CPU_US[$case|h3]}); h2=$(median ${CPU_US[$case|h2]})
  # shellcheck disable=SC2086
  echo "| $case | $h3 | $h2 | $(ratio "$h3" "$h2") | $(median ${RPS[$case|h3]}) | $(median ${RPS[$case|h2]}) |"
done

if [[ ${CALLGRIND:-0} == 1 ]] && command -v valgrind >/dev/null; then
  echo
  echo "## callgrind: one 2 s --http3 run (first case), inclusive cost of the top functions"
  IFS=: read -r threads conns streams <<<"${CASES%% *}"
  out=$BENCH_TMP/callgrind.out
  timeout -k 5 120 valgrind --tool=callgrind --callgrind-out-file="$out" "$PACER" --http3 --cacert "$CERTS/ca.pem" \
    --streams "$streams" -t1 -c"$conns" -d2s "$CADDY_URL" >/dev/null 2>&1 || true
  callgrind_annotate --inclusive=no "$out" 2>/dev/null | sed -n '1,40p'
fi
