#!/usr/bin/env bash
# Memory per virtual user and CPU per request of a scenario with many users and
# think time (issue 27's proof, measured for issue 42): USERS users (100,000 by
# default), each with its own connection, waiting pacer.between(THINK_MIN, THINK_MAX)
# seconds between tasks of one GET, for DURATION, against `pacer serve` on loopback.
#
# A process holds at most its fd limit of connections (and a source address the
# ephemeral range, 28,232 ports by default), so the users are split over SHARDS
# processes (--shard i/N, the test's own mechanism), each against its own
# `pacer serve` on its own port, all running at once. Each client runs under GNU
# time: its peak RSS and its user + system CPU. Reported:
#   - the peak RSS summed over the shards, per user;
#   - the same run with BASE_USERS users per shard, and the difference per added
#     user (what a user costs, without each process's fixed ~8 MB of text and
#     tables);
#   - the clients' CPU (user + sys) per request, and the requests per second.
#
# Usage: bench/scenario_users.sh
#   env: PACER (build/release/pacer), USERS (100000), SHARDS (enough for the fd limit),
#        DURATION (20s), THINK_MIN (5), THINK_MAX (15), SPAWN_RATE (unset: all at once),
#        BASE_USERS (100), ONE_AT_A_TIME (unset; 1: the shards run one after another, each
#        with its share of the users, where 2 busy cores cannot run them all at once). The users start at once unless SPAWN_RATE is given; give the
#        run time enough to start them and to send (DURATION 60s, SPAWN_RATE 5000 for 100,000).
# Bounded: each client run is killed after DURATION + 240 s (a run of 100,000 users on a
# 2-core machine busy with builds was still stopping its users 60 s past -d). Network: 127.0.0.1 only.
# Every process started here is stopped on exit.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

USERS=${USERS:-100000}
DURATION=${DURATION:-20s}
THINK_MIN=${THINK_MIN:-5}
THINK_MAX=${THINK_MAX:-15}
SPAWN_RATE=${SPAWN_RATE:-}
spawn=()
[[ -n $SPAWN_RATE ]] && spawn=(--spawn-rate "$SPAWN_RATE")
BASE_USERS=${BASE_USERS:-100}
ONE_AT_A_TIME=${ONE_AT_A_TIME:-}
[[ $USERS =~ ^[1-9][0-9]*$ ]] || bench_die "USERS must be a positive integer, got '$USERS'"
[[ -x $PACER ]] || bench_die "$PACER not built: cmake --preset release && cmake --build --preset release"
[[ -x $GNU_TIME ]] || bench_die "$GNU_TIME not found (apt-get install time)"
raise_fd_limit
# A client holds a connection per user plus ~100 descriptors of its own; its server the other ends.
per_process=$(( FD_LIMIT - 200 ))
(( per_process > 25000 )) && per_process=25000  # the ephemeral range of one source address
SHARDS=${SHARDS:-$(( (USERS + per_process - 1) / per_process ))}
(( USERS / SHARDS <= per_process )) || bench_die "$SHARDS shards of $USERS users exceed the fd limit $FD_LIMIT"
bound_s=$(( $(duration_s "$DURATION") + 240 ))
bench_setup

cat >"$BENCH_TMP/users.lua" <<LUA
return {wait = pacer.between($THINK_MIN, $THINK_MAX),
        tasks = {{1, function(u) u:get("/bytes/100", nil, "page") end}}}
LUA

# run_shards USERS: every shard at once, each against its own pacer serve; sets
# RSS_KB (summed peak RSS), CPU_S (summed user + sys), REQUESTS (responses summed),
# STARTED (users started, summed).
run_shards() {
  local users=$1 i port log
  local -a pids=() servers=()
  for (( i = 0; i < SHARDS; i++ )); do
    log=$BENCH_TMP/serve$i.log
    "$PACER" serve --listen 127.0.0.1:0 -t 1 >"$log" 2>&1 &
    servers+=("$!")
    BENCH_PIDS+=("$!")
  done
  for (( i = 0; i < SHARDS; i++ )); do
    port=
    for _ in $(seq 100); do
      port=$(grep -o '127\.0\.0\.1:[0-9]*' "$BENCH_TMP/serve$i.log" 2>/dev/null | head -1 | cut -d: -f2 || true)
      [[ -n $port ]] && break
      sleep 0.1
    done
    [[ -n $port ]] || bench_die "pacer serve did not start: $(cat "$BENCH_TMP/serve$i.log")"
    "$GNU_TIME" -f '%M %U %S' -o "$BENCH_TMP/time$i" timeout --signal=KILL "$bound_s" \
      "$PACER" --scenario "$BENCH_TMP/users.lua" -t 1 -u "$users" "${spawn[@]}" \
      --shard "$i/$SHARDS" -d "$DURATION" --timeout 10s --format json "http://127.0.0.1:$port/" \
      >"$BENCH_TMP/report$i.json" 2>"$BENCH_TMP/client$i.log" &
    pids+=("$!")
    if [[ -n $ONE_AT_A_TIME ]]; then
      wait "$!" || bench_die "shard $i exited $?: $(tail -3 "$BENCH_TMP/client$i.log")"
    fi
  done
  for (( i = 0; i < SHARDS; i++ )); do
    [[ -n $ONE_AT_A_TIME ]] && break  # each waited for as it ran
    wait "${pids[$i]}" || bench_die "shard $i exited $?: $(tail -3 "$BENCH_TMP/client$i.log")"
  done
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  read -r RSS_KB CPU_S < <(cat "$BENCH_TMP"/time* | awk '{r += $1; c += $2 + $3} END {printf "%d %.2f\n", r, c}')
  read -r REQUESTS STARTED < <(python3 -c 'import json, sys
reports = [json.load(open(p)) for p in sys.argv[1:]]
print(sum(r["counts"]["responses"] for r in reports), sum(r["scenario"]["users_started"] for r in reports))' \
    "$BENCH_TMP"/report*.json)
  rm -f "$BENCH_TMP"/time* "$BENCH_TMP"/report*.json
}

echo "## $USERS users over $SHARDS processes, think time $THINK_MIN-$THINK_MAX s, $DURATION ($(nproc) cores, $(uptime | sed 's/.*load/load/'))"
run_shards $(( BASE_USERS * SHARDS ))
base_rss=$RSS_KB
run_shards "$USERS"
secs=$(duration_s "$DURATION")
python3 - "$STARTED" "$RSS_KB" "$base_rss" "$(( BASE_USERS * SHARDS ))" "$CPU_S" "$REQUESTS" "$secs" <<'PY'
import sys
users, rss_kb, base_kb, base_users, cpu_s, requests, secs = map(float, sys.argv[1:])
print(f"| users started | peak RSS (sum) | per user | per added user | requests | requests/s | CPU per request |")
print(f"|---:|---:|---:|---:|---:|---:|---:|")
per_request = f"{cpu_s / requests * 1e6:.1f} us" if requests else "-"
print(f"| {users:,.0f} | {rss_kb / 1024:,.1f} MiB | {rss_kb * 1024 / users:,.0f} B | "
      f"{(rss_kb - base_kb) * 1024 / (users - base_users):,.0f} B | {requests:,.0f} | {requests / secs:,.0f} | {per_request} |")
print(f"(baseline: {base_users:,.0f} users, {base_kb / 1024:,.1f} MiB summed; CPU {cpu_s:.1f} s user + sys)")
PY
