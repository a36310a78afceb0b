#!/usr/bin/env bash
# make bench-idle (also run by make bench): what canopy costs while it records an idle
# tree, next to what the kernel makes any /proc reader pay for the same tree. Prints the
# machine and one markdown table, and writes the same text to bench/idle-results.md.
# See bench/README.md.
#
#   bench/run.sh [BUILD_DIR]   (make bench builds the binaries first)
#
# Environment: BENCH_RUNS (3), BENCH_SECONDS (20, each canopy recording),
# BENCH_FLOOR_SECONDS (10, each floor run), BENCH_TREE (200), BENCH_UNRELATED (2000).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/machine.sh
source "$repo/bench/machine.sh"
# shellcheck source=bench/values.sh
source "$repo/bench/values.sh"
build=$(cd "${1:-$repo/build}" && pwd)
runs=${BENCH_RUNS:-3}
seconds=${BENCH_SECONDS:-20}
floor_seconds=${BENCH_FLOOR_SECONDS:-10}
tree=${BENCH_TREE:-200}
unrelated=${BENCH_UNRELATED:-2000}
intervals=(100 10)

# Targets from the issue.
max_cpu_us=7
max_bytes=8
max_flat_ratio=1.20  # "flat": the median with unrelated processes within 20% of without

canopy=$build/canopy
floor=$build/bench/canopy_bench_floor
workload=$build/tests/canopy_workload
[ -x "$workload" ] || workload=$build/bench/canopy_bench_workload  # BUILD_TESTING=OFF

fail() {
  echo "bench: $*" >&2
  exit 1
}
progress() { echo "bench: $*" >&2; }

for binary in "$canopy" "$floor" "$workload"; do
  [ -x "$binary" ] || fail "missing $binary (run: make bench, or cmake --build $build --target canopy_bench)"
done
command -v sqlite3 >/dev/null || fail "needs the sqlite3 command (apt-get install sqlite3)"
command -v setsid >/dev/null || fail "needs setsid (util-linux)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/canopy-bench.XXXXXX")
group=""            # process group of the measurement running now
unrelated_group=""  # process group of the unrelated processes, while they run

stop_group() {
  kill -KILL -- "-$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  [ -z "$group" ] || stop_group "$group"
  [ -z "$unrelated_group" ] || stop_group "$unrelated_group"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# in_group OUT CMD ARGS: runs CMD in a process group of its own (so that the trap can
# end it and every process under it), its stdout to OUT, and returns its status. It
# runs in the background so that a signal to this script is handled at once.
in_group() {
  local out=$1
  shift
  # setsid execs in place here (a background job is not a group leader), so $! is the
  # process group.
  setsid "$@" >"$out" &
  group=$!
  local status=0
  wait "$group" || status=$?
  group=""
  return "$status"
}

# children_of PID: how many children PID has (its leader thread's children list).
children_of() {
  local list
  list=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
  echo "$list" | wc -w
}

start_unrelated() {
  setsid "$workload" idle "$unrelated" 3600000 >/dev/null &
  unrelated_group=$!
  local waited_ds=0
  while [ "$(children_of "$unrelated_group")" -lt "$unrelated" ]; do
    waited_ds=$((waited_ds + 1))
    [ "$waited_ds" -lt 600 ] || fail "the $unrelated unrelated processes did not start in 60 s"
    sleep 0.1
  done
}

stop_unrelated() {
  stop_group "$unrelated_group"
  unrelated_group=""
}

# meta FILE KEY: a value from a recording's meta table.
meta() { sqlite3 "$1" "select value from meta where key = '$2'"; }

# canopy_run LABEL INTERVAL RUN: records the idle tree; keeps CPU and bytes per
# process-sample under cpu/LABEL/INTERVAL and bytes/LABEL/INTERVAL.
canopy_run() {
  local label=$1 interval=$2 run=$3
  local file=$tmp/$label-$interval-$run.canopy
  progress "canopy record -i $interval, $tree idle ($label), run $run/$runs (${seconds} s)"
  in_group /dev/null "$canopy" record -q -i "$interval" -o "$file" -- \
    "$workload" idle "$tree" $((seconds * 1000)) || fail "canopy record -i $interval failed (status $?)"
  [ ! -e "$file-wal" ] || fail "$file was not checkpointed (a -wal file is left)"
  local samples user_ns system_ns bytes
  samples=$(sqlite3 "$file" "select sum(processes) from tick")
  user_ns=$(meta "$file" recorder_cpu_user_ns)
  system_ns=$(meta "$file" recorder_cpu_system_ns)
  bytes=$(stat -c %s "$file")
  [ "${samples:-0}" -gt 0 ] || fail "$file has no process-samples"
  [ -n "$user_ns" ] && [ -n "$system_ns" ] || fail "$file has no recorder_cpu_* in meta"
  record "cpu/$label/$interval" "$(awk -v ns=$((user_ns + system_ns)) -v n="$samples" 'BEGIN { print ns / n / 1000 }')"
  record "bytes/$label/$interval" "$(awk -v b="$bytes" -v n="$samples" 'BEGIN { print b / n }')"
}

# floor_run LABEL INTERVAL RUN FLOOR_ARGS: the kernel floor for the same idle tree;
# keeps CPU per process-read under floor/LABEL/INTERVAL.
floor_run() {
  local label=$1 interval=$2 run=$3
  shift 3
  local out=$tmp/floor.out
  progress "floor $label -i $interval, $tree idle, run $run/$runs (${floor_seconds} s)"
  in_group "$out" "$floor" -i "$interval" -n "$tree" "$@" -- \
    "$workload" idle "$tree" $((floor_seconds * 1000)) || fail "canopy_bench_floor $* failed (status $?)"
  # process_reads=40200 ticks=200 cpu_user_ns=1234000 cpu_system_ns=56789000
  local us
  us=$(awk '{ for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] } }
            END { if (v["process_reads"] > 0) print (v["cpu_user_ns"] + v["cpu_system_ns"]) / v["process_reads"] / 1000 }' "$out")
  [ -n "$us" ] || fail "canopy_bench_floor printed no process reads: $(cat "$out")"
  record "floor/$label/$interval" "$us"
}

# --- The runs. Interleaved (each run of every configuration, then the next run), so
# that the machine's drifting noise falls on all configurations alike.
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
for run in $(seq 1 "$runs"); do
  for interval in "${intervals[@]}"; do
    canopy_run alone "$interval" "$run"
    floor_run keep-stat "$interval" "$run" -f stat,statm
    floor_run keep-schedstat "$interval" "$run" -f schedstat -s statm
    floor_run reopen-stat "$interval" "$run" -f stat,statm --reopen
  done
  progress "starting $unrelated unrelated idle processes"
  start_unrelated
  for interval in "${intervals[@]}"; do
    canopy_run unrelated "$interval" "$run"
  done
  stop_unrelated
done

# --- The report.
fmt() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
le() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x <= y) }'; }
yes_no() { if le "$1" "$2"; then echo yes; else echo "**no**"; fi; }

# row FIGURE INTERVAL KEY [TARGET]: a table row of median, min and max.
row() {
  local figure=$1 interval=$2 key=$3 target=${4:-}
  local median min max
  read -r median min max < <(stats "$key")
  local goal="" met=""
  if [ -n "$target" ]; then
    goal="≤ $target"
    met=$(yes_no "$median" "$target")
  fi
  echo "| $figure | $interval | $(fmt "$median") | $(fmt "$min") | $(fmt "$max") | $goal | $met |"
}

# ratio_row FIGURE INTERVAL KEY_A KEY_B [TARGET]: median of A / median of B.
ratio_row() {
  local figure=$1 interval=$2 a=$3 b=$4 target=${5:-}
  local median_a median_b ratio goal="" met=""
  median_a=$(stats "$a" | cut -d' ' -f1)
  median_b=$(stats "$b" | cut -d' ' -f1)
  ratio=$(awk -v a="$median_a" -v b="$median_b" 'BEGIN { print a / b }')
  if [ -n "$target" ]; then
    goal="≤ $target"
    met=$(yes_no "$ratio" "$target")
  fi
  echo "| $figure | $interval | $(fmt "$ratio") | | | $goal | $met |"
}

report() {
  echo "# canopy benchmark results"
  echo
  echo "Written by \`bench/run.sh\` (\`make bench\`); never edited by hand. What each figure means: bench/README.md."
  echo
  describe_machine
  echo "- Date: $started; load average at start: $load_at_start"
  echo "- Tree: \`canopy_workload idle $tree MS\` ($tree idle children and their waiting parent)." \
    "$runs runs per configuration, interleaved; canopy recordings of $seconds s, floor runs of $floor_seconds s."
  echo "- Unrelated: \`canopy_workload idle $unrelated\` started outside the recorded tree before those recordings, killed after."
  echo
  echo "| Figure | -i ms | median | min | max | target | met |"
  echo "| --- | ---: | ---: | ---: | ---: | --- | --- |"
  local i
  for i in "${intervals[@]}"; do
    row "canopy CPU per process-sample (µs), $tree idle" "$i" "cpu/alone/$i" "$max_cpu_us"
  done
  for i in "${intervals[@]}"; do
    row "canopy CPU per process-sample (µs), $tree idle + $unrelated unrelated" "$i" "cpu/unrelated/$i" "$max_cpu_us"
  done
  for i in "${intervals[@]}"; do
    ratio_row "flat: with / without $unrelated unrelated (ratio of medians)" "$i" "cpu/unrelated/$i" "cpu/alone/$i" \
      "$max_flat_ratio"
  done
  for i in "${intervals[@]}"; do
    row "bytes on disk per process-sample, $tree idle" "$i" "bytes/alone/$i" "$max_bytes"
  done
  for i in "${intervals[@]}"; do
    row "bytes on disk per process-sample, $tree idle + $unrelated unrelated" "$i" "bytes/unrelated/$i" "$max_bytes"
  done
  for i in "${intervals[@]}"; do
    row "floor: stat+statm kept open, pread (µs per process-read)" "$i" "floor/keep-stat/$i"
  done
  for i in "${intervals[@]}"; do
    row "floor: schedstat each tick, statm each second, kept open, pread (µs per process-read)" "$i" "floor/keep-schedstat/$i"
  done
  for i in "${intervals[@]}"; do
    row "floor: stat+statm open+read+close per tick (µs per process-read)" "$i" "floor/reopen-stat/$i"
  done
  for i in "${intervals[@]}"; do
    ratio_row "canopy / floor stat+statm kept open" "$i" "cpu/alone/$i" "floor/keep-stat/$i"
  done
  for i in "${intervals[@]}"; do
    ratio_row "canopy / floor schedstat (+statm each second) kept open (what canopy reads when it asks each process)" "$i" "cpu/alone/$i" "floor/keep-schedstat/$i"
  done
  for i in "${intervals[@]}"; do
    ratio_row "open+read+close / kept open, stat+statm" "$i" "floor/reopen-stat/$i" "floor/keep-stat/$i"
  done
}

report >"$tmp/results.md"
cp "$tmp/results.md" "$repo/bench/idle-results.md"
cat "$tmp/results.md"
