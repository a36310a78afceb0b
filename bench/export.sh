#!/usr/bin/env bash
# make bench-export (also part of make bench): how fast `canopy export` writes each
# format, and `canopy import` reads an Onlooker file back, and in how much memory.
# Prints the machine and one markdown table, and writes the same text to
# bench/export-results.md.
#
#   bench/export.sh [BUILD_DIR]
#
# The recording is synthetic (bench/synthetic_recording.cpp): 200 processes, every one
# changing on every tick, 100 ms for 10 minutes. Environment: BENCH_EXPORT_RUNS (3).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/machine.sh
source "$repo/bench/machine.sh"
build=$(cd "${1:-$repo/build}" && pwd)
runs=${BENCH_EXPORT_RUNS:-3}
for binary in "$build/canopy" "$build/bench/canopy_bench_synthetic"; do
  [ -x "$binary" ] || { echo "bench: missing $binary (run: make bench-export)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
"$build/bench/canopy_bench_synthetic" "$work/big.canopy" 200 600 100 100 >&2
recording_mb=$(( $(stat -c %s "$work/big.canopy") >> 20 ))

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One row: LABEL, then the command; it is run $runs times, its output in $work/out.
rows=$(mktemp)
measure() {
  local label=$1
  shift
  : >"$work/times"
  : >"$work/rss"
  for run in $(seq "$runs"); do
    rm -f "$work/out"
    /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1
    read -r seconds rss_kib <"$work/time"
    echo "$seconds" >>"$work/times"
    echo "$rss_kib" >>"$work/rss"
    echo "bench: $label run $run: $seconds s, $rss_kib KiB" >&2
  done
  printf '| %s | %s | %s | %s | %d MiB | %d MiB |\n' "$label" "$(median <"$work/times")" \
    "$(sort -n "$work/times" | head -1)" "$(sort -n "$work/times" | tail -1)" \
    "$(( $(stat -c %s "$work/out") >> 20 ))" "$(( $(sort -n "$work/rss" | tail -1) / 1024 ))" >>"$rows"
}

measure "export onlooker" "$build/canopy" export "$work/big.canopy" --format onlooker -o "$work/out"
cp "$work/out" "$work/onlooker.json"
measure "export csv (wide)" "$build/canopy" export "$work/big.canopy" --format csv -o "$work/out"
measure "export csv --long" "$build/canopy" export "$work/big.canopy" --format csv --long -o "$work/out"
measure "export chrome" "$build/canopy" export "$work/big.canopy" --format chrome -o "$work/out"
measure "export jsonl" "$build/canopy" export "$work/big.canopy" --format jsonl -o "$work/out"
measure "import of the onlooker file" "$build/canopy" import "$work/onlooker.json" --cpus 2 -f -o "$work/out"

{
  echo "# canopy export and import benchmark results"
  echo
  echo "Written by \`bench/export.sh\` (\`make bench-export\`, and part of \`make bench\`); never edited by hand."
  echo
  describe_machine
  echo "- Date: $started; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- Recording: \`canopy_bench_synthetic big.canopy 200 600 100 100\` ($recording_mb MiB): 200 processes, each"
  echo "  changing on every tick, 100 ms for 10 minutes. $runs runs each, read from the page cache."
  echo
  echo "| Command | Median s | Fastest s | Slowest s | Output | Peak memory (max RSS) |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  cat "$rows"
} | tee "$repo/bench/export-results.md"
rm -f "$rows"
