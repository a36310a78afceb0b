#!/usr/bin/env bash
# make bench-logs (also part of make bench): how fast `canopy log add` imports each
# format, and in how much memory. Prints the machine and one markdown table, and
# writes the same text to bench/log-import-results.md.
#
#   bench/log_import.sh [BUILD_DIR]
#
# Logs are synthetic (bench/log_generator.cpp), kept in BUILD_DIR/bench-data between
# runs. Environment: BENCH_LOG_RUNS (3), BENCH_LOG_MB (1024: the size of the `lines`
# log; the other formats get a quarter of it).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/machine.sh
source "$repo/bench/machine.sh"
build=$(cd "${1:-$repo/build}" && pwd)
runs=${BENCH_LOG_RUNS:-3}
lines_mb=${BENCH_LOG_MB:-1024}
data=$build/bench-data
mkdir -p "$data"
for binary in "$build/canopy" "$build/bench/canopy_bench_loggen"; do
  [ -x "$binary" ] || { echo "bench: missing $binary (run: make bench-logs)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

# A real (short) recording to add to; its span does not cover the logs, which only
# adds the outside-the-span warning.
"$build/canopy" record -q -o "$work/base.canopy" -- true

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

rows=$(mktemp)
for format in lines jsonl cutelooker cmake-trace; do
  mb=$lines_mb
  [ "$format" = lines ] || mb=$(( lines_mb / 4 ))
  log=$data/synthetic-$format-${mb}MB.log
  if [ ! -f "$log" ]; then
    echo "bench: writing $log" >&2
    "$build/bench/canopy_bench_loggen" "$format" "$mb" 1795341600000 >"$log"
  fi
  bytes=$(stat -c %s "$log")
  : >"$work/times"
  : >"$work/rss"
  for run in $(seq "$runs"); do
    cp "$work/base.canopy" "$work/run.canopy"
    sync
    /usr/bin/time -f "%e %M" -o "$work/time" "$build/canopy" log add "$work/run.canopy" "$log" --format "$format" --tz UTC \
      >"$work/out" 2>/dev/null
    read -r seconds rss_kib <"$work/time"
    echo "$seconds" >>"$work/times"
    echo "$rss_kib" >>"$work/rss"
    events=$(grep -o 'added [0-9]*' "$work/out" | cut -d' ' -f2)
    growth=$(( $(stat -c %s "$work/run.canopy") - $(stat -c %s "$work/base.canopy") ))
    echo "bench: $format run $run: $seconds s, $rss_kib KiB" >&2
  done
  rate() { awk -v b="$bytes" -v s="$1" 'BEGIN { printf "%.0f", b / 1048576 / s }'; }
  med=$(median <"$work/times")
  slowest=$(sort -n "$work/times" | tail -1)
  fastest=$(sort -n "$work/times" | head -1)
  rss=$(sort -n "$work/rss" | tail -1)
  printf '| %s | %d MB | %s | %s | %s | %s | %s | %d MiB | %.0f |\n' "$format" "$((bytes >> 20))" "$events" \
    "$med" "$(rate "$med")" "$(rate "$slowest")" "$(rate "$fastest")" "$((rss / 1024))" \
    "$(awk -v g="$growth" -v e="$events" 'BEGIN { print g / e }')" >>"$rows"
done

{
  echo "# canopy log import benchmark results"
  echo
  echo "Written by \`bench/log_import.sh\` (\`make bench-logs\`, and part of \`make bench\`); never edited by hand."
  echo
  describe_machine
  echo "- Date: $started; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- $runs runs of \`canopy log add REC LOG --format F --tz UTC\` per format, each into a fresh copy of a small recording;"
  echo "  the logs are synthetic (bench/log_generator.cpp), read from the page cache after the first run."
  echo
  echo "| Format | Log size | Events | Median s | Median MB/s | Slowest MB/s | Fastest MB/s | Peak memory (max RSS) | Recording growth, bytes per event |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  cat "$rows"
} | tee "$repo/bench/log-import-results.md"
rm -f "$rows"
