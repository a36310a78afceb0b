#!/usr/bin/env bash
# make bench-viewer (also the end of make bench): how fast `canopy view` opens and
# answers, and how large `canopy report --html` gets, on 1-hour recordings of 200
# processes at 100 ms. Prints the machine and one markdown table, and writes the same
# text to bench/viewer-results.md.
#
#   bench/viewer.sh [BUILD_DIR]
#
# The recordings are synthetic (bench/synthetic_recording.cpp writes them through the
# store's own Writer), kept in BUILD_DIR/bench-data between runs. Environment:
# BENCH_VIEWER_RUNS (5).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/machine.sh
source "$repo/bench/machine.sh"
build=$(cd "${1:-$repo/build}" && pwd)
runs=${BENCH_VIEWER_RUNS:-5}
data=$build/bench-data
mkdir -p "$data"

for binary in "$build/canopy" "$build/bench/canopy_bench_synthetic" "$build/bench/canopy_bench_viewer"; do
  [ -x "$binary" ] || { echo "bench: missing $binary (run: make bench-viewer)" >&2; exit 1; }
done

started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
results=$(mktemp)
trap 'rm -f "$results" "$data"/*.html' EXIT

# busy%: the share of the 200 processes whose memory and CPU change on every tick;
# the others change every 5 s. 100 is the worst case (every sample row written).
for busy in 100 20; do
  recording=$data/hour-200x100ms-busy$busy.canopy
  if [ ! -f "$recording" ]; then
    echo "bench: writing $recording" >&2
    "$build/bench/canopy_bench_synthetic" "$recording" 200 3600 100 "$busy"
  fi
  rows=$(sqlite3 "$recording" "SELECT count(*) FROM sample")
  {
    echo
    echo "### 200 processes, 1 hour at 100 ms, $busy% of them busy: $(du -m "$recording" | cut -f1) MB, $rows sample rows"
    echo
    echo "| Figure | median ms | min ms | max ms | size |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    "$build/bench/canopy_bench_viewer" "$recording" "$runs"
    node "$repo/bench/viewer_browser.mjs" "$build/canopy" "$recording" "$runs"
    "$build/canopy" report "$recording" --html "$data/report.html" --force >/dev/null 2>&1
    echo "| canopy report --html: file size | | | | $(( $(stat -c %s "$data/report.html") / 1024 )) KiB |"
  } >>"$results"
done

{
  echo "# canopy viewer benchmark results"
  echo
  echo "Written by \`bench/viewer.sh\` (\`make bench-viewer\`, and the end of \`make bench\`); never edited by hand."
  echo
  describe_machine
  echo "- Date: $started; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- Browser: $(/usr/bin/chromium --version 2>/dev/null), headless, 1600×900"
  cat "$results"
} | tee "$repo/bench/viewer-results.md"
