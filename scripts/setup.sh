#!/usr/bin/env bash
# Installs the Debian packages pacer needs that are missing, then configures and
# builds one CMake preset. Usage: scripts/setup.sh [PRESET] [--bench]
#   PRESET: debug (default), release, asan, tsan, fuzz (clang + libFuzzer: scripts/fuzz.sh)
#   --bench: also install the peers the benchmarks compare against (wrk, h2load)
# Safe to run again: it installs nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

preset=debug
want_bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) want_bench=1 ;;
    debug|release|asan|tsan|fuzz) preset=$arg ;;
    *) echo "setup.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

packages=(g++ cmake ninja-build pkg-config libfmt-dev node-llhttp nlohmann-json3-dev
          libgtest-dev libgmock-dev libbenchmark-dev python3 python3-pytest python3-jsonschema procps
          zlib1g-dev libhdrhistogram-java default-jre-headless
          libssl-dev openssl libnghttp2-dev libluajit-5.1-dev
          nginx nghttp2-server tmux)
# Headless Chromium opens the HTML report in the e2e tests (test_html_report.py).
packages+=(chromium)
# The io_uring engine (src/io/uring_engine.*).
packages+=(liburing-dev)
# HTTP/3 (--http3, docs/http3.md): ngtcp2 with its GnuTLS crypto, nghttp3, GnuTLS;
# the e2e tests' HTTP/3 servers (gtlsserver from ngtcp2-server, Caddy).
packages+=(libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev ngtcp2-server caddy)
# Cluster engines the e2e tests run shards under (test_engines_*.py) and the Node
# that validates deploy/k8s offline; npm only where Node does not bring its own.
packages+=(slurmctld slurmd slurm-client munge openmpi-bin mpich pdsh parallel openssh-server openssh-client nodejs)
command -v npm >/dev/null || packages+=(npm)
# Scenarios (--scenario, docs/scenarios.md): r:json() decodes with Debian's lua-cjson.
packages+=(lua-cjson)
# --config FILE (src/cli/config_layers.cc) reads TOML with toml++, used header-only.
packages+=(libtomlplusplus-dev)
# Locust 2.12 writes the CSV files --csv-format locust must match (tests/e2e/test_locust_csv.py).
packages+=(python3-locust)
# Peers the benchmarks compare against (nginx is also a test peer, above).
# --compressed decodes bodies with zlib (above), brotli and zstd.
packages+=(libbrotli-dev libzstd-dev)
# Prometheus remote write (--prometheus-remote-write, docs/prometheus.md): snappy
# compresses the pushes, libcurl sends them (HTTP and HTTPS, basic/bearer auth).
packages+=(libsnappy-dev libcurl4-openssl-dev)
# The Prometheus e2e tests (test_prometheus.py): a real Prometheus server that
# scrapes /metrics and receives remote writes, promtool (same package) to check
# the exposition, and protoc to decode what pacer pushes (tests/prom/).
packages+=(prometheus protobuf-compiler)
if [ "$want_bench" = 1 ]; then packages+=(wrk nghttp2-client time); fi
# The fuzz preset: Debian's clang, its runtimes (libFuzzer, ASan, UBSan) and llvm-symbolizer.
if [ "$preset" = fuzz ]; then packages+=(clang-14 libclang-rt-14-dev llvm-14); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q -o DPkg::Lock::Timeout=300
  "${sudo_cmd[@]}" apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}"
fi

# kubernetes-models for tools/k8s-validate, pinned by its package-lock.json.
if [ ! -d tools/k8s-validate/node_modules/kubernetes-models ]; then
  echo "setup: npm ci in tools/k8s-validate"
  npm ci --prefix tools/k8s-validate --no-audit --no-fund --loglevel=error
fi

# uPlot, the chart library embedded into the HTML report at build time
# (web/assets.cmake), pinned by web/package-lock.json.
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in web"
  npm ci --prefix web --no-audit --no-fund --loglevel=error
fi

cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
