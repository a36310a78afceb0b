# What the install and package tests share: a scratch directory with a recording in
# it, and the check that a canopy serves the viewer's page.
# Sourced with $case_name (for messages) and $build (the build directory) set.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL ($case_name): $*" >&2; exit 1; }

"$build/canopy" record -q -o "$work/r.canopy" -- true

# Serves the recording with the canopy at $1 (environment from the caller) and fetches
# the page it names; the page is the viewer's HTML.
serves_the_page() {
  local canopy=$1 out=$work/view.out
  "$canopy" view "$work/r.canopy" --port 0 >"$out" 2>&1 &
  local pid=$!
  local url=""
  # Until the "serving" line, or the viewer's exit (its error is then in $out).
  while [ -z "$url" ] && kill -0 $pid 2>/dev/null; do
    sleep 0.1
    url=$(sed -n 's/.*serving .* at \(http[^ ]*\) .*/\1/p' "$out")
  done
  if [ -z "$url" ]; then
    wait $pid || true
    fail "$canopy view did not serve: $(cat "$out")"
  fi
  local page
  page=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "$url") ||
    { kill $pid; fail "GET $url failed"; }
  kill $pid
  wait $pid || true
  grep -qi '<!doctype html>' <<<"$page" || fail "$url is not the viewer's page: ${page:0:200}"
}

