#!/usr/bin/env bash
# canopy installed as a user or a packager installs it: `cmake --install` into a
# prefix, staged with DESTDIR, run through a symlink on PATH, and with the module
# somewhere else named by CANOPY_WEB_MODULE. Each way, `canopy view` serves the page.
#
# usage: install_test.sh CASE CMAKE BUILD_DIR
set -euo pipefail
case_name=$1 cmake=$2 build=$3

source "$(dirname "$0")/lib.sh"

expect_installed() {
  local root=$1
  for file in bin/canopy lib/canopy/canopy-web.so share/man/man1/canopy.1.gz share/bash-completion/completions/canopy; do
    [ -f "$root/$file" ] || fail "$root/$file was not installed"
  done
  # The page as man shows it, from where it was installed.
  MANWIDTH=80 man -l "$root/share/man/man1/canopy.1.gz" 2>&1 | grep -q "canopy record" ||
    fail "man -l $root/share/man/man1/canopy.1.gz does not show the page"
}

case $case_name in
prefix)
  "$cmake" --install "$build" --prefix "$work/prefix" >/dev/null
  expect_installed "$work/prefix"
  serves_the_page "$work/prefix/bin/canopy"
  ;;
symlink)
  # A link on PATH to the installed binary: the module is found from the binary's
  # real path, not from the link's folder.
  "$cmake" --install "$build" --prefix "$work/opt/canopy" >/dev/null
  mkdir "$work/bin"
  ln -s "$work/opt/canopy/bin/canopy" "$work/bin/canopy"
  PATH="$work/bin:$PATH" serves_the_page canopy
  ;;
destdir)
  DESTDIR="$work/stage" "$cmake" --install "$build" --prefix /usr/local >/dev/null
  expect_installed "$work/stage/usr/local"
  serves_the_page "$work/stage/usr/local/bin/canopy"
  ;;
module-override)
  # The binary copied alone: one line naming where canopy looked and what to do...
  mkdir "$work/alone"
  cp "$build/canopy" "$work/alone/canopy"
  if "$work/alone/canopy" view "$work/r.canopy" --port 0 >"$work/alone.out" 2>&1; then
    fail "view without its module succeeded"
  fi
  [ "$(wc -l <"$work/alone.out")" -eq 1 ] || fail "not one line: $(cat "$work/alone.out")"
  grep -q "cannot find the viewer's module canopy-web.so: not at '$work/alone/canopy-web.so' nor at '$work/alone/../lib/canopy/canopy-web.so'.*CANOPY_WEB_MODULE" \
    "$work/alone.out" || fail "unexpected error: $(cat "$work/alone.out")"
  # ...and with the module named by the variable, it serves.
  mkdir "$work/modules"
  cp "$build/canopy-web.so" "$work/modules/"
  CANOPY_WEB_MODULE="$work/modules/canopy-web.so" serves_the_page "$work/alone/canopy"
  # A variable naming nothing loadable: one line naming the file.
  if CANOPY_WEB_MODULE="$work/r.canopy" "$work/alone/canopy" view "$work/r.canopy" >"$work/bad.out" 2>&1; then
    fail "view with a bad CANOPY_WEB_MODULE succeeded"
  fi
  grep -q "cannot load the viewer's module '$work/r.canopy'" "$work/bad.out" || fail "unexpected error: $(cat "$work/bad.out")"
  ;;
*)
  fail "no such case"
  ;;
esac
echo "ok ($case_name)"
