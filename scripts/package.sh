#!/usr/bin/env bash
# Builds pacer's Debian package, build/package/pacer_<version>-1_<arch>.deb: the
# binary, its HTTP/3 module, man pages, bash and zsh completion and the docs, laid
# out as packaging/install.cmake says, by CPack's DEB generator (packaging/deb.cmake).
# Compiled with Debian's hardening flags (dpkg-buildflags); Depends comes from
# dpkg-shlibdeps over the binary and the module. Then lintian checks it, when
# installed. Install the result with: apt install ./build/package/pacer_*.deb
# Usage: scripts/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-build package

build=build/package
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cppflags=$(dpkg-buildflags --get CPPFLAGS)
cflags="$(dpkg-buildflags --get CFLAGS) $cppflags -DNDEBUG -ffile-prefix-map=$PWD=."
cxxflags="$(dpkg-buildflags --get CXXFLAGS) $cppflags -DNDEBUG -ffile-prefix-map=$PWD=."
ldflags=$(dpkg-buildflags --get LDFLAGS)
# Build type None: only Debian's flags above (-O2 -g, hardening), as debhelper builds.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_INSTALL_PREFIX=/usr \
  -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF \
  -DCMAKE_C_FLAGS="$cflags" -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" -DCMAKE_MODULE_LINKER_FLAGS="$ldflags" -DCMAKE_SHARED_LINKER_FLAGS="$ldflags" \
  >/dev/null
cmake --build "$build"
rm -f "$build"/pacer_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/pacer_*.deb)
echo "package: $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends Installed-Size
if command -v lintian >/dev/null; then
  echo "package: lintian $deb"
  lintian --tag-display-limit 0 --info "$deb" || { echo "package: lintian found errors" >&2; exit 1; }
fi
