#!/usr/bin/env bash
# Checks the Debian package the way a user meets it: a fresh Debian 12 root made by
# mmdebstrap (from the Debian registry) with none of pacer's build dependencies,
# `apt install ./pacer_*.deb` there (Depends brings the libraries), then, inside it:
# pacer --version, a 2-second run against `pacer serve`, the man page and the bash
# completion, and an --http3 run against gtlsserver (Debian's ngtcp2-server). Needs root
# and the network and takes minutes, so it is not part of CI (scripts/test.sh).
# Usage: scripts/package-check.sh [ROOT]   (ROOT: an existing root to reuse, or a new one)
set -euo pipefail
cd "$(dirname "$0")/.."
debs=(build/package/pacer_*.deb)
[ -f "${debs[0]}" ] || { echo "package-check: no build/package/pacer_*.deb: run scripts/package.sh" >&2; exit 2; }
command -v mmdebstrap >/dev/null || apt-get install -y -q --no-install-recommends mmdebstrap
root=${1:-$(mktemp -d /tmp/pacer-root.XXXXXX)}
if [ ! -x "$root/usr/bin/apt-get" ]; then
  rmdir "$root" 2>/dev/null || true
  mmdebstrap --variant=apt bookworm "$root" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
fi

mounted=()
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "${h3_pid:-}" ] && kill "$h3_pid" 2>/dev/null || true
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || true; done
}
trap cleanup EXIT
for fs in proc sys dev dev/pts; do mount --bind "/$fs" "$root/$fs"; mounted+=("$root/$fs"); done
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"; }
free_port() { python3 -c "import socket; s=socket.socket(socket.AF_INET, socket.$1); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"; }

cp "${debs[0]}" "$root/tmp/"
deb=/tmp/$(basename "${debs[0]}")
echo "package-check: apt install .$deb in $root"
in_root apt-get update -q >/dev/null  # mmdebstrap leaves no package lists behind
in_root apt-get install -y -q ".$deb"
in_root dpkg -L pacer | grep -E 'bin/pacer$|pacer-http3.so$|pacer-tls.so$|man1/pacer.1.gz$|completions/pacer$|_pacer$|copyright$'
in_root pacer --version

port=$(free_port SOCK_STREAM)
in_root pacer serve --listen "127.0.0.1:$port" -t 1 &
server_pid=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
echo "package-check: pacer -d2s http://127.0.0.1:$port/"
in_root pacer -d2s -c4 -t1 --latency "http://127.0.0.1:$port/"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=

echo "package-check: the man page and the bash completion"
in_root sh -c 'zcat /usr/share/man/man1/pacer.1.gz | grep -c "^\.TP"'
in_root bash -c 'source /usr/share/bash-completion/completions/pacer; COMP_WORDS=(pacer --io ""); COMP_CWORD=2; _pacer; echo "pacer --io <TAB>: ${COMPREPLY[*]}"'

echo "package-check: --http3 against gtlsserver"
in_root apt-get install -y -q --no-install-recommends ngtcp2-server >/dev/null
in_root sh -c 'rm -rf /tmp/h3 && mkdir -p /tmp/h3/www && echo hello > /tmp/h3/www/index.html && pacer cert --out /tmp/h3'
h3_port=$(free_port SOCK_DGRAM)
in_root gtlsserver --no-quic-dump --no-http-dump -q -d /tmp/h3/www 127.0.0.1 "$h3_port" /tmp/h3/key.pem /tmp/h3/cert.pem \
  >/dev/null 2>&1 &
h3_pid=$!
sleep 1
in_root pacer --http3 --cacert /tmp/h3/cert.pem -d2s -c2 -t1 "https://127.0.0.1:$h3_port/index.html"
echo "package-check: passed in $root"
