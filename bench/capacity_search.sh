#!/usr/bin/env bash
# The capacity search (issue 41) against two servers on this machine, with the wall
# time each search took: `pacer serve`'s /pool/4/25 (a known capacity, 160/s) and
# nginx (worker_processes 1, a 100-byte file). Prints each search's text and a
# summary line; the JSON reports stay in $OUT (default: a temp dir, removed).
# Knobs: STEP (each step's -d, default 5s), WARMUP (1s), OBJECTIVE_POOL
# ("p99<=100ms,errors<=0.1%"), OBJECTIVE_NGINX ("p99<=2ms,errors<=0.1%"),
# CONNS_NGINX (64), THREADS_NGINX (1). Network: 127.0.0.1 only; every server it
# starts is stopped on exit.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

STEP=${STEP:-5s}
WARMUP=${WARMUP:-1s}
OBJECTIVE_POOL=${OBJECTIVE_POOL:-"p99<=100ms,errors<=0.1%"}
OBJECTIVE_NGINX=${OBJECTIVE_NGINX:-"p99<=2ms,errors<=0.1%"}
CONNS_NGINX=${CONNS_NGINX:-64}
THREADS_NGINX=${THREADS_NGINX:-1}

[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
command -v "$NGINX" >/dev/null || bench_die "nginx not found (apt-get install nginx)"
bench_setup
OUT=${OUT:-$BENCH_TMP}
machine_summary

# search NAME URL ARGS...: one search, its text, and "NAME: ANSWER (N steps, T s)".
search() {
  local name=$1 url=$2 start end
  shift 2
  echo
  echo "== $name: $PACER $* -d $STEP --warmup $WARMUP $url"
  start=$(date +%s.%N)
  "$PACER" "$@" -d "$STEP" --warmup "$WARMUP" --format json -o "$OUT/$name.json" "$url" || true
  end=$(date +%s.%N)
  python3 - "$OUT/$name.json" "$name" "$start" "$end" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
wall = float(sys.argv[4]) - float(sys.argv[3])
print(f"{sys.argv[2]}: {doc['answer']['sentence']} ({len(doc['steps'])} steps, {wall:.0f} s wall)")
PY
}

start_pacer_serve
search pool "${SERVE_URL%/bytes/*}/pool/4/25" --capacity "$OBJECTIVE_POOL" -c 50 -t 1
start_nginx plain
search nginx "$NGINX_URL" --capacity "$OBJECTIVE_NGINX" -c "$CONNS_NGINX" -t "$THREADS_NGINX" \
  --server-pid "$(pgrep -P "$NGINX_PID" | head -1)"  # the worker (the master only waits)
