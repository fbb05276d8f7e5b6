#!/usr/bin/env bash
# Open-model pacing, seen from the server: `pacer serve --log-arrivals` records
# the CLOCK_MONOTONIC time of every request; this script runs pacer at a
# constant rate against it and prints how far the arrivals deviate from the
# ideal schedule (k / rate after the first), and how many arrive per millisecond.
# Each rate runs once per I/O engine and per mode: "sleep" (the default: a worker
# sleeps until its next send) and "spin" (--spin: it polls, a whole CPU). Beside
# them, "floor": a bare thread sleeping until each send time (bench/wake_latency),
# how late this machine wakes a sleeper, which no sleeping client goes below.
# Usage: bench/pacing.sh [RATE ...]   (default: 1000 20000; DURATION=5s;
#        ENGINES="uring epoll", MODES="sleep spin"; PACER_BASE=another pacer binary
#        (the build before a change) runs beside PACER, interleaved, as "base-ENGINE")
# Needs a release build (cmake --preset release && cmake --build --preset release).
set -euo pipefail
cd "$(dirname "$0")/.."
pacer=${PACER:-build/release/pacer}
floor=${WAKE_LATENCY:-build/release/bench/wake_latency}
duration=${DURATION:-5s}
rates=("$@")
[ "${#rates[@]}" -gt 0 ] || rates=(1000 20000)
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

echo "pacing: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), server and client on the same machine"
printf '%-10s %-6s %-8s %-9s %-9s %-9s %-10s %-10s %-10s %-12s\n' engine mode rate expected received "count%" "p50 dev" "p99 dev" "max dev" "req/ms p99"
for rate in "${rates[@]}"; do
if [ -x "$floor" ]; then
  read -r f50 f99 _ fmax < <("$floor" "$rate" "${duration%s}")
  printf '%-10s %-6s %-8s %-9s %-9s %-9s %-8sus %-8sus %-8sus %-12s\n' floor sleep "$rate" - - - "$f50" "$f99" "$fmax" -
fi
for engine in ${ENGINES:-uring epoll}; do
for mode in ${MODES:-sleep spin}; do
for client in pacer ${PACER_BASE:+base}; do
  bin=$pacer label=$engine
  [ "$client" = base ] && bin=$PACER_BASE label=base-$engine
  spin=(); [ "$mode" = spin ] && spin=(--spin)
  log="$work/arrivals-$rate-$engine-$mode.txt"
  "$pacer" serve --listen 127.0.0.1:0 -t 1 --log-arrivals "$log" >"$work/serve.out" 2>"$work/serve.err" &
  server_pid=$!
  for _ in $(seq 100); do grep -q listening "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
  url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/serve.out")
  "$bin" --io "$engine" "${spin[@]}" -t1 -c50 -R "$rate" -d "$duration" "$url" >"$work/client-$rate.txt" 2>"$work/client-$rate.err"
  kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  python3 - "$log" "$rate" "$duration" "$label" "$mode" <<'PY'
import sys
path, rate, duration, engine, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
seconds = float(duration.rstrip("s"))
t = sorted(int(x) for x in open(path))
expected = int(rate * seconds)
period = 1e9 / rate
# Deviation of arrival k from the ideal schedule, with the offset that best fits
# (the median), so a constant network delay does not count as a deviation.
d = [t[k] - k * period for k in range(len(t))]
offset = sorted(d)[len(d) // 2]
dev = sorted(abs(x - offset) for x in d)
def pct(v, p): return v[min(len(v) - 1, int(p * len(v)))]
per_ms = {}
for x in t: per_ms[x // 1_000_000] = per_ms.get(x // 1_000_000, 0) + 1
counts = sorted(per_ms.values())
print(f"{engine:<10} {mode:<6} {rate:<8g} {expected:<9d} {len(t):<9d} {100*len(t)/expected:<9.2f} "
      f"{pct(dev,0.5)/1e3:<8.1f}us {pct(dev,0.99)/1e3:<8.1f}us {dev[-1]/1e3:<8.1f}us "
      f"{pct(counts,0.99)} (ideal {rate/1000:g})")
PY
done
done
done
done
