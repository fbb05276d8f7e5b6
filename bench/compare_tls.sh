#!/usr/bin/env bash
# HTTPS: pacer vs wrk, HTTP/1.1 over TLS, same server, same -t/-c/-d, runs
# interleaved (pacer, wrk, pacer, wrk…) so drift on a shared machine hits both
# alike. For each run: requests/sec, client CPU time per request (user+sys from
# GNU time), client peak RSS; then per case the medians and the ratios pacer/wrk.
#
# Servers (started here, stopped on exit): `pacer serve -t 1 --tls` (/bytes/100)
# and nginx with ssl, one worker, a 100-byte file; both with a throwaway
# certificate from `pacer cert`. pacer runs with -k because wrk never verifies
# certificates. Keep-alive connections: this measures TLS record I/O; the
# handshakes happen once per connection at the start. Traffic: 127.0.0.1 only.
#
# Usage: bench/compare_tls.sh
#   env: DURATION (5s), REPEATS (3), PACER (build/release/pacer), WRK (wrk),
#        SERVERS ("pacer-serve nginx"), CASES ("1:50 2:200", threads:conns),
#        ENGINES ("uring epoll": pacer once per I/O engine, side by side)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVERS=${SERVERS:-"pacer-serve nginx"}
CASES=${CASES:-"1:50 2:200"}
PACER_EXTRA_ARGS=(-k)

bench_require
bench_setup
raise_fd_limit

CERT_DIR=$BENCH_TMP/cert
mkdir -p "$CERT_DIR" && chmod 755 "$CERT_DIR"
"$PACER" cert --out "$CERT_DIR" >/dev/null || bench_die "pacer cert failed"

# Starts `pacer serve -t 1 --tls`. Sets TLS_SERVE_URL.
start_pacer_serve_tls() {
  local log=$BENCH_TMP/serve-tls.log port=
  "$PACER" serve --listen 127.0.0.1:0 -t 1 --tls "$CERT_DIR/cert.pem" "$CERT_DIR/key.pem" >"$log" 2>&1 &
  BENCH_PIDS+=("$!")
  for _ in $(seq 100); do
    port=$(grep -o '127\.0\.0\.1:[0-9]*' "$log" 2>/dev/null | head -1 | cut -d: -f2 || true)
    [[ -n $port ]] && break
    sleep 0.1
  done
  if [[ -z $port ]] || ! wait_for_port "$port"; then bench_die "pacer serve --tls did not start: $(cat "$log")"; fi
  TLS_SERVE_URL="https://127.0.0.1:$port/bytes/$BODY_BYTES"
}

echo "# HTTPS: pacer vs wrk: $(date -u '+%Y-%m-%d %H:%M UTC')"
machine_summary
echo "settings: duration $DURATION, $REPEATS repeats, interleaved pacer/wrk; HTTP/1.1 over TLS, keep-alive; pacer -k"
echo "no CPU pinning (no taskset): client and server share all $(nproc) cores"
echo

start_server() {
  case $1 in
    pacer-serve) start_pacer_serve_tls; SERVER_URL=$TLS_SERVE_URL ;;
    nginx) start_nginx ssl; SERVER_URL=$NGINX_URL ;;
    *) bench_die "unknown server $1 (pacer-serve, nginx)" ;;
  esac
}

declare -A RPS CPU_US RSS_KB
ROWS=()
read -r -a PACER_TOOLS <<<"$(pacer_engine_tools)"
measure_all_cases "${PACER_TOOLS[@]}" wrk

print_engines_wrk_medians "medians over $REPEATS runs (ratios to wrk)" "${PACER_TOOLS[@]}"
