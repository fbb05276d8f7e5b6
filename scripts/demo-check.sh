#!/usr/bin/env bash
# Times scripts/demo.sh as a new user meets it: a clean checkout (the files git
# tracks, no build/, no web/node_modules) in a fresh Debian 12 root made by mmdebstrap
# from the Debian registry, so none of the project's packages is there, not even the
# compiler. The machines pacer runs on come with Node.js and npm (the README's
# machine); with --with-node the root gets this machine's node and npm (the files of
# its nodejs package), as such a machine has them. Runs demo.sh twice: the first run
# installs and builds, the second finds everything there. Prints the wall and CPU
# seconds of each and the packages the first run installed. Needs root and the
# network and takes minutes, so it is not part of CI (scripts/test.sh).
# Usage: scripts/demo-check.sh [--with-node] [ROOT]   (ROOT: kept afterwards; with
#        DEMO_CHECK_BASE=DIR, a copy of DIR, an untouched mmdebstrap root, replaces mmdebstrap)
set -euo pipefail
cd "$(dirname "$0")/.."
with_node=0
if [ "${1:-}" = --with-node ]; then with_node=1; shift; fi
command -v mmdebstrap >/dev/null || apt-get install -y -q --no-install-recommends mmdebstrap
root=${1:-$(mktemp -d /tmp/pacer-demo-root.XXXXXX)}
rmdir "$root" 2>/dev/null || true
[ ! -e "$root" ] || { echo "demo-check: $root exists: give a new directory" >&2; exit 2; }
sources=("deb http://deb.debian.org/debian bookworm main"
         "deb http://deb.debian.org/debian bookworm-updates main"
         "deb http://deb.debian.org/debian-security bookworm-security main")
if [ -n "${DEMO_CHECK_BASE:-}" ]; then
  cp -a "$DEMO_CHECK_BASE" "$root"  # a copy of an untouched mmdebstrap root, to save its minutes
  printf '%s\n' "${sources[@]}" >"$root/etc/apt/sources.list"
else
  mmdebstrap --variant=apt bookworm "$root" "${sources[@]}"
fi

mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" || umount -l "${mounted[i]}" || true; done
}
trap cleanup EXIT
for fs in proc sys dev dev/pts; do mount --bind "/$fs" "$root/$fs"; mounted+=("$root/$fs"); done
# This machine's certificate authorities, for npm's fetch of uPlot (NODE_EXTRA_CA_CERTS,
# as in this machine's environment): the root's own bundle comes with its packages.
cp /etc/ssl/certs/ca-certificates.crt "$root/tmp/machine-ca.crt"
in_root() {
  chroot "$root" env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb \
    NODE_EXTRA_CA_CERTS=/tmp/machine-ca.crt "$@"
}

mkdir -p "$root/root/pacer"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -x -C "$root/root/pacer"
if [ "$with_node" = 1 ]; then
  # This machine's node and npm (npm is updated in place, so not only the nodejs
  # package's files), installed as its package nodejs at this machine's version, so
  # that apt sees a nodejs as this machine's does (node-llhttp needs one).
  stage=$(mktemp -d)
  mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/lib"
  cp -a /usr/bin/node "$stage/usr/bin/"
  cp -a /usr/lib/node_modules "$stage/usr/lib/"
  for link in npm npx corepack; do [ ! -L "/usr/bin/$link" ] || cp -a "/usr/bin/$link" "$stage/usr/bin/"; done
  printf '%s\n' "Package: nodejs" "Version: $(dpkg-query -W -f '${Version}' nodejs)" \
    "Architecture: $(dpkg --print-architecture)" "Multi-Arch: $(dpkg-query -W -f '${Multi-Arch}' nodejs)" \
    "Maintainer: demo-check <root@localhost>" \
    "Provides: $(dpkg-query -W -f '${Provides}' nodejs)" "Description: this machine's Node.js and npm" \
    >"$stage/DEBIAN/control"
  dpkg-deb --build -Zgzip -z1 "$stage" "$root/tmp/nodejs.deb" >/dev/null
  rm -rf "$stage"
  in_root dpkg -i /tmp/nodejs.deb >/dev/null
  echo "demo-check: node $(in_root node --version), npm $(in_root npm --version), from this machine"
fi
in_root dpkg-query -W -f '${Package}\n' | sort >"$root/tmp/before"

TIMEFORMAT='%R s wall, %U user + %S sys CPU-s'
echo "demo-check: first run (installs, builds, runs)"
time in_root bash -c 'cd /root/pacer && scripts/demo.sh' >"$root/tmp/first.log" 2>&1 \
  || { tail -30 "$root/tmp/first.log"; exit 1; }
in_root dpkg-query -W -f '${Package}\n' | sort >"$root/tmp/after"
grep -E '^setup:' "$root/tmp/first.log" || true
echo "demo-check: $(comm -13 "$root/tmp/before" "$root/tmp/after" | wc -l) packages installed:"
comm -13 "$root/tmp/before" "$root/tmp/after" | tr '\n' ' '; echo
echo "demo-check: second run (everything there)"
time in_root bash -c 'cd /root/pacer && scripts/demo.sh' >"$root/tmp/second.log" 2>&1 \
  || { tail -30 "$root/tmp/second.log"; exit 1; }
echo "demo-check: what the demo printed (second run):"
cat "$root/tmp/second.log"
echo "demo-check: passed; the root is $root (logs in $root/tmp/)"
