#!/usr/bin/env bash
# --bind at scale (issue 33's Proof): -c 60000 against nginx from four loopback
# source addresses opens every connection, counted per source address with `ss`;
# the same run from one source address ends with the port arithmetic (the
# `ports` error class) instead of a wall of generic connect errors.
#
# One destination (127.0.0.1:PORT) gives each source address the ephemeral range
# (net.ipv4.ip_local_port_range, 28,232 ports by default): 60,000 connections need
# at least three addresses. Too heavy for CI (tests/e2e/test_connect_path.py has the
# scaled-down check: 40 ports in a network namespace); run it by hand.
#
# Usage: bench/bind_60k.sh        env: PACER (build/release/pacer), CONNECTIONS (60000),
#        RATE (2000: an open-model trickle, so the connections mostly wait), DURATION (4s)
# Needs a hard fd limit of about 2 x CONNECTIONS + 1000 (pacer and nginx each hold one
# end); root raises it. Network: 127.0.0.0/8 only. Every process is stopped on exit.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS=${CONNECTIONS:-60000}
RATE=${RATE:-2000}
DURATION=${DURATION:-4s}
[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
command -v ss >/dev/null || bench_die "ss not found (apt-get install iproute2)"
need=$(( 2 * CONNECTIONS + 1000 ))
ulimit -Hn "$need" 2>/dev/null || true
ulimit -n "$need" 2>/dev/null || bench_die "cannot raise the fd limit to $need (run as root, or lower CONNECTIONS)"
bench_setup

dir=$BENCH_TMP/nginx && mkdir -p "$dir/root" && chmod 755 "$dir" "$dir/root"
echo ok >"$dir/root/index.html"
port=$(free_port)
cat >"$dir/nginx.conf" <<CONF
daemon off;
worker_processes 2;
worker_rlimit_nofile $need;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections $(( CONNECTIONS + CONNECTIONS / 8 + 1000 )); }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  server { listen 127.0.0.1:$port backlog=65535; root $dir/root; }
}
CONF
nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" >"$dir/stdout.log" 2>&1 &
BENCH_PIDS+=("$!")
wait_for_port "$port" || bench_die "nginx did not start: $(cat "$dir/error.log")"
url="http://127.0.0.1:$port/index.html"
read -r first last </proc/sys/net/ipv4/ip_local_port_range
echo "ephemeral ports per source address: $(( last - first + 1 )) ($first-$last)"

# Four addresses: every connection opens. ss counts them per source address
# while the run holds them (sampled a second in).
"$PACER" -B 127.0.0.2-127.0.0.5 -t 4 -c "$CONNECTIONS" -R "$RATE" -d "$DURATION" --timeout 10s \
  --format json -o "$BENCH_TMP/four.json" "$url" >/dev/null 2>"$BENCH_TMP/four.err" &
client=$!
sleep "$(( $(duration_s "$DURATION") / 2 + 1 ))"
echo "open sockets per source address, seen by ss during the run:"
ss -Htn state established "( dport = :$port )" | awk '{split($3, a, ":"); n[a[1]]++} END {for (s in n) print "  " s, n[s]}' | sort
wait "$client" || true
four=0
python3 - "$BENCH_TMP/four.json" "$CONNECTIONS" <<'PY' || four=1
import json, sys
r = json.load(open(sys.argv[1])); want = int(sys.argv[2])
e = {k: v for k, v in r["errors"].items() if v}
print(f"4 addresses: {r['counts']['connects']} connects of {want}, errors {e or 'none'}")
sys.exit(0 if r["counts"]["connects"] >= want and not e.get("ports") and not e.get("connect") else 1)
PY

# One address (another one: the four above hold their ports in TIME_WAIT): the ports run out.
"$PACER" -B 127.0.0.6 -t 4 -c "$CONNECTIONS" -R "$RATE" -d "$DURATION" --timeout 10s \
  --format json -o "$BENCH_TMP/one.json" "$url" >/dev/null 2>"$BENCH_TMP/one.err" || true
one=0
python3 - "$BENCH_TMP/one.json" <<'PY' || one=1
import json, sys
r = json.load(open(sys.argv[1]))
print(f"1 address: {r['counts']['connects']} connects, ports errors {r['errors']['ports']}, "
      f"connect errors {r['errors']['connect']}")
print(f"  first error: {r['first_error']}")
sys.exit(0 if r["errors"]["ports"] > 0 and r["errors"]["connect"] == 0 else 1)
PY
exit $(( four || one ))
