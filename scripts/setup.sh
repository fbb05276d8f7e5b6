#!/usr/bin/env bash
# Installs the Debian packages a profile needs that are missing (saying which and
# why), then configures and builds what that profile uses.
# Usage: scripts/setup.sh [--list] [--no-build] PROFILE [PRESET]
#   run    build and run pacer: the compiler, CMake and the libraries pacer links;
#          builds only the pacer binary and its HTTP/3 module, with precompiled
#          headers and a unity build (cmake/fast_build.cmake)        (preset: demo)
#   test   run, plus everything the test suite needs: GoogleTest, pytest and
#          pytest-xdist, the test peers (nginx, nghttpd, Caddy, gtlsserver), Chromium,
#          the cluster engines (Slurm, Open MPI, MPICH, sshd) and Node; builds
#          everything (preset: debug; release, asan or tsan as PRESET; asan adds
#          clang-14 with its sanitizer and libFuzzer runtimes)
#   bench  run, plus Google Benchmark and the peers the benchmarks compare against
#          (wrk, h2load, nginx, nghttpd, Caddy); builds everything    (preset: release)
#   fuzz   the test profile with the asan preset (clang-14, libFuzzer, llvm-symbolizer),
#          whose tree holds the fuzz targets (scripts/fuzz.sh)
#   package  run, plus dpkg-dev (dpkg-buildflags, dpkg-shlibdeps) and lintian:
#          what scripts/package.sh needs; builds nothing itself
#   --list      print each package group of PROFILE, why, and what is missing; change nothing
#   --no-build  install, but do not configure or build
# A bare preset (debug, release, asan, tsan) still works: the test profile with
# that preset. Safe to run again: it installs nothing when everything is present.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=
preset=
list_only=0
build=1
for arg in "$@"; do
  case "$arg" in
    --list) list_only=1 ;;
    --no-build) build=0 ;;
    --bench) profile=bench ;;  # the old spelling
    run|test|bench|package) profile=$arg ;;
    fuzz) profile=test; preset=asan ;;
    debug|release|demo|asan|tsan) preset=$arg ;;
    *) echo "setup.sh: unknown argument '$arg' (profiles: run, test, bench, fuzz, package; see the top of $0)" >&2; exit 2 ;;
  esac
done
if [ -z "$profile" ]; then profile=test; fi
case "$profile" in
  run) preset=${preset:-demo} ;;
  bench|package) preset=${preset:-release} ;;
  test) preset=${preset:-debug} ;;
esac

# Package groups: "why|packages". Every profile starts from run's.
groups=(
  "the compiler and build tools, and ccache, which every tree compiles through|g++ cmake ninja-build pkg-config ccache"
  "libraries pacer links: fmt, JSON, zlib, OpenSSL, nghttp2 (HTTP/2), LuaJIT (scripts), liburing (the io_uring engine), brotli and zstd (--compressed)|libfmt-dev nlohmann-json3-dev zlib1g-dev libssl-dev libnghttp2-dev libluajit-5.1-dev liburing-dev libbrotli-dev libzstd-dev"
  "llhttp's C sources, compiled into pacer (the HTTP/1.1 parser)|node-llhttp"
  "toml++ reads --config files (header-only); snappy and libcurl send Prometheus remote writes|libtomlplusplus-dev libsnappy-dev libcurl4-openssl-dev"
  "the HTTP/3 module (--http3): ngtcp2 with GnuTLS crypto, nghttp3, GnuTLS|libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev"
)
# npm fetches uPlot (the chart library the HTML report embeds, web/package-lock.json)
# only when it is not there yet; the machine's own npm does when it has one.
need_npm=0
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  need_npm=1
fi
if [ "$profile" = test ]; then
  groups+=(
    "unit and component tests (GoogleTest; Google Benchmark for the release preset), end-to-end tests (pytest, spread over processes by pytest-xdist)|libgtest-dev libgmock-dev libbenchmark-dev python3 python3-pytest python3-pytest-xdist python3-jsonschema procps tmux"
    "the reference HdrHistogram that reads pacer's histograms (tests/reference)|libhdrhistogram-java default-jre-headless"
    "test peers: nginx, nghttpd (HTTP/2), the openssl command|nginx nghttp2-server openssl"
    "real proxies --proxy is tested through (test_proxy.py): squid (with its basic_ncsa_auth helper), tinyproxy|squid tinyproxy"
    "HTTP/3 test servers (gtlsserver, Caddy)|ngtcp2-server caddy"
    "headless Chromium opens the HTML report and the web view (test_html_report.py)|chromium"
    "cluster engines the shard tests run under (test_engines_*.py)|slurmctld slurmd slurm-client munge openmpi-bin mpich pdsh parallel openssh-server openssh-client"
    "Node validates deploy/k8s offline (tools/k8s-validate)|nodejs"
    "scenarios' r:json() decodes with lua-cjson (docs/scenarios.md)|lua-cjson"
    "the man page and completion tests (test_man_and_completion.py): bash, zsh|bash zsh"
    "Locust 2.12 writes the CSV files --csv-format locust must match (test_locust_csv.py)|python3-locust"
    "--server-metrics scrapes a real exporter in test_evidence.py: node_exporter on loopback (issue 28)|prometheus-node-exporter"
    "a real Prometheus that scrapes /metrics and takes remote writes, promtool to check the exposition, protoc to decode pushes (test_prometheus.py, tests/prom)|prometheus protobuf-compiler"
  )
  need_npm=1  # tools/k8s-validate's kubernetes-models
fi
if [ "$profile" = bench ]; then
  groups+=(
    "the micro-benchmarks (Google Benchmark)|libbenchmark-dev"
    "the peers the benchmarks compare against and their tools (bench/*.sh)|wrk nghttp2-client nghttp2-server nginx caddy openssl time strace procps python3"
  )
fi
if [ "$profile" = package ]; then
  groups+=("the Debian package: dpkg-buildflags and dpkg-shlibdeps (dpkg-dev), lintian to check it|dpkg-dev lintian")
  build=0  # scripts/package.sh configures and builds its own tree
fi
if [ "$profile" = test ] && [ "$preset" = asan ]; then
  groups+=("the asan preset and its fuzz targets: Debian's clang, its runtimes (ASan, UBSan, libFuzzer) and llvm-symbolizer|clang-14 libclang-rt-14-dev llvm-14")
fi
if [ "$need_npm" = 1 ] && ! command -v npm >/dev/null; then
  why="npm fetches uPlot, the chart library the HTML report embeds (web/package-lock.json)"
  if [ "$profile" = test ]; then why="$why, and the k8s manifests' validator (tools/k8s-validate)"; fi
  groups+=("$why|npm")
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=()
for group in "${groups[@]}"; do
  why=${group%%|*}
  read -r -a pkgs <<<"${group#*|}"
  absent=()
  for p in "${pkgs[@]}"; do installed "$p" || absent+=("$p"); done
  if [ "$list_only" = 1 ]; then
    echo "$profile: $why"
    echo "    ${pkgs[*]}${absent[*]:+   (missing: ${absent[*]})}"
  elif [ "${#absent[@]}" -gt 0 ]; then
    echo "setup: $why: ${absent[*]}"
  fi
  missing+=("${absent[@]}")
done
if [ "$list_only" = 1 ]; then exit 0; fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${#missing[@]} packages for the $profile profile"
  sudo_cmd=()
  [ "$(id -u)" = 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q -o DPkg::Lock::Timeout=300
  "${sudo_cmd[@]}" apt-get install -y -q -o DPkg::Lock::Timeout=300 --no-install-recommends "${missing[@]}"
fi

# kubernetes-models for tools/k8s-validate (a test of deploy/k8s), pinned by its package-lock.json.
if [ "$profile" = test ] && [ ! -d tools/k8s-validate/node_modules/kubernetes-models ]; then
  echo "setup: npm ci in tools/k8s-validate"
  npm ci --prefix tools/k8s-validate --no-audit --no-fund --loglevel=error
fi

# uPlot, the chart library embedded into the HTML report at build time
# (web/assets.cmake), pinned by web/package-lock.json.
if [ ! -f web/node_modules/.package-lock.json ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in web (uPlot, embedded into the HTML report)"
  npm ci --prefix web --no-audit --no-fund --loglevel=error
fi

if [ "$build" = 0 ]; then exit 0; fi
case "$profile" in
  run)
    # Only the binary and its modules: no test or benchmark target is configured,
    # so neither GoogleTest nor Google Benchmark is needed. Configured once (a few
    # seconds): the build re-runs CMake itself when a CMakeLists.txt changes.
    if [ ! -f "build/$preset/build.ninja" ] || [ CMakePresets.json -nt "build/$preset/CMakeCache.txt" ]; then
      cmake --preset "$preset" -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF >/dev/null
    fi
    cmake --build --preset "$preset" --target pacer pacer_http3 pacer_tls ;;
  test)
    cmake --preset "$preset" -DPACER_BUILD_TESTS=ON >/dev/null
    cmake --build --preset "$preset" ;;
  bench)
    cmake --preset "$preset" -DPACER_BUILD_BENCH=ON -DPACER_BUILD_TESTS=OFF >/dev/null
    cmake --build --preset "$preset" ;;
esac
