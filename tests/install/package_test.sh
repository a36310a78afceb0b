#!/usr/bin/env bash
# The .deb `make package` builds: its Depends name the Debian runtime libraries canopy
# links, it holds the installed files under /usr, apt on this machine resolves it, and
# the canopy it unpacks serves the viewer. (No container runs here: the package is
# checked with dpkg-deb and apt-get's simulation, not installed into a clean system.)
#
# usage: package_test.sh CPACK BUILD_DIR
set -euo pipefail
case_name=package cpack=$1 build=$2

source "$(dirname "$0")/lib.sh"

"$cpack" --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$work/cpack.log")"
debs=("$work"/out/canopy_*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one canopy_*.deb in $work/out: ${debs[*]}"
deb=${debs[0]}

# Depends, as dpkg-shlibdeps found them: one library package per runtime dependency.
depends=$(dpkg-deb -f "$deb" Depends)
depends_names=$(sed 's/ ([^)]*)//g; s/, /\n/g' <<<"$depends")
for package in libc6 libstdc++6 libsqlite3-0 libbpf1 libnl-genl-3-200 libnettle8 libssl3 zlib1g; do
  grep -qFx "$package" <<<"$depends_names" || fail "Depends lacks $package: $depends"
done

contents=$(dpkg-deb -c "$deb")
for file in ./usr/bin/canopy ./usr/lib/canopy/canopy-web.so ./usr/share/man/man1/canopy.1.gz \
  ./usr/share/bash-completion/completions/canopy; do
  grep -q " $file\$" <<<"$contents" || fail "the package lacks $file"
done

# apt resolves it against this machine's packages (simulated: nothing is installed).
apt-get install -s "$deb" >"$work/apt.out" 2>&1 || fail "apt-get -s install failed: $(cat "$work/apt.out")"
grep -q "^Inst canopy " "$work/apt.out" || fail "apt would not install canopy: $(cat "$work/apt.out")"

dpkg-deb -x "$deb" "$work/root"
serves_the_page "$work/root/usr/bin/canopy"
echo "ok (package: $(basename "$deb"); Depends: $depends)"
