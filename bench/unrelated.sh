#!/usr/bin/env bash
# make bench-unrelated (also run by make bench): what processes started elsewhere on the
# machine cost canopy while it records a tree that does nothing. Prints the machine and
# one markdown table, and writes the same text to bench/unrelated-results.md. See
# bench/README.md.
#
#   bench/unrelated.sh [BUILD_DIR]   (make bench builds the binaries first)
#
# Environment: BENCH_RUNS (3), BENCH_UNRELATED_CHURN (5000 processes a window),
# BENCH_UNRELATED_JOBS (4 churns at once, sharing them).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/machine.sh
source "$repo/bench/machine.sh"
# shellcheck source=bench/values.sh
source "$repo/bench/values.sh"
build=$(cd "${1:-$repo/build}" && pwd)
runs=${BENCH_RUNS:-3}
churn=${BENCH_UNRELATED_CHURN:-5000}
jobs=${BENCH_UNRELATED_JOBS:-4}
# Side by side, so that on a machine busy with other work the churn still outnumbers
# what the rest of the machine starts during the window. Each churn is a process too.
per_job=$((churn / jobs))
unrelated=$((per_job * jobs + jobs))

# The target from the issue: fork, exec and exit of one unrelated process together.
max_us_per_process=5

canopy=$build/canopy
workload=$build/tests/canopy_workload
[ -x "$workload" ] || workload=$build/bench/canopy_bench_workload  # BUILD_TESTING=OFF

fail() {
  echo "bench: $*" >&2
  exit 1
}
progress() { echo "bench: $*" >&2; }

for binary in "$canopy" "$workload"; do
  [ -x "$binary" ] || fail "missing $binary (run: make bench, or cmake --build $build --target canopy_bench)"
done
command -v sqlite3 >/dev/null || fail "needs the sqlite3 command (apt-get install sqlite3)"
command -v setsid >/dev/null && command -v setpriv >/dev/null || fail "needs setsid and setpriv (util-linux)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/canopy-bench.XXXXXX")
recorder=""  # process group of the canopy recording now, while it runs
churners=()  # process groups of the unrelated churns, while they run

stop_group() {
  kill -KILL -- "-$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}
cleanup() {
  [ -z "$recorder" ] || stop_group "$recorder"
  for group in "${churners[@]}"; do
    stop_group "$group"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# first_child PID: a child of PID (its leader thread's children list), or nothing.
first_child() { cut -d' ' -f1 "/proc/$1/task/$1/children" 2>/dev/null || true; }

# now_ns: CLOCK_MONOTONIC-like wall time for the window's length.
now_ns() { date +%s%N; }

# meta FILE KEY: a value from a recording's meta table.
meta() { sqlite3 "$1" "select value from meta where key = '$2'"; }

# The two ways canopy meets the machine's processes: as root, its tree filter (the
# kernel drops every event and exit record outside the tree); without CAP_BPF, only
# the kinds of event it never reads, so each fork, exec and exit on the machine wakes
# it. setpriv takes CAP_BPF (and CAP_SYS_ADMIN, which also grants it) from canopy.
modes=(tree kinds)
declare -A mode_prefix=([tree]="" [kinds]="setpriv --bounding-set -bpf,-sys_admin --")
declare -A mode_filter=([tree]="tree" [kinds]="event kinds")
declare -A mode_name=([tree]="as root: tree filter" [kinds]="without CAP_BPF: event kinds only")

# window MODE LABEL RUN SECONDS: records `sleep` (a tree that does nothing) while,
# outside it, $jobs `canopy_workload churn` start $unrelated processes (LABEL churn), or
# nothing happens for SECONDS (LABEL quiet). Keeps the recorder's CPU (ns)
# under cpu/MODE/LABEL and the machine's forks under forks/MODE/LABEL, and sets
# window_seconds and window_cpu_ns. (Not in a subshell: the trap must know what runs.)
window() {
  local mode=$1 label=$2 run=$3 seconds=$4
  local file=$tmp/$mode-$label-$run.canopy
  rm -f "$file"
  # -i 1000: the ticks' own cost is noise here, the less of it the better.
  # shellcheck disable=SC2086
  setsid ${mode_prefix[$mode]} "$canopy" record -q -i 1000 -o "$file" -- sleep 3600 >/dev/null &
  recorder=$!
  # Recording once canopy has started its command (its only child then).
  local command="" waited_ds=0
  while [ -z "$command" ]; do
    waited_ds=$((waited_ds + 1))
    [ "$waited_ds" -lt 300 ] || fail "canopy record did not start its command in 30 s"
    sleep 0.1
    command=$(first_child "$recorder")
  done
  local started_ns
  started_ns=$(now_ns)
  if [ "$label" = churn ]; then
    # Its own session: not a process of the recorded tree, nor of its cgroup.
    local job
    for job in $(seq 1 "$jobs"); do
      setsid "$workload" churn "$per_job" 0 >/dev/null &
      churners+=($!)
    done
    for job in "${churners[@]}"; do
      wait "$job" || fail "canopy_workload churn $per_job 0 failed (status $?)"
    done
    churners=()
  else
    sleep "$seconds"
  fi
  local elapsed_ns=$(($(now_ns) - started_ns))
  kill -TERM "$command"
  wait "$recorder" || true  # the command's status: killed by SIGTERM
  recorder=""
  [ ! -e "$file-wal" ] || fail "$file was not checkpointed (a -wal file is left)"
  local user_ns system_ns filter
  user_ns=$(meta "$file" recorder_cpu_user_ns)
  system_ns=$(meta "$file" recorder_cpu_system_ns)
  filter=$(meta "$file" process_events_filter)
  [ -n "$user_ns" ] && [ -n "$system_ns" ] || fail "$file has no recorder_cpu_* in meta"
  [ "$(meta "$file" process_events)" = netlink ] ||
    fail "canopy did not hear process events ($(meta "$file" process_events)): nothing to measure"
  case "$filter" in
    "${mode_filter[$mode]}"*) ;;
    *) fail "canopy ran with the process events filter '$filter', not '${mode_filter[$mode]}'" ;;
  esac
  record "cpu/$mode/$label" $((user_ns + system_ns))
  record "forks/$mode/$label" "$(meta "$file" machine_forks)"
  window_seconds=$(awk -v ns="$elapsed_ns" 'BEGIN { printf "%.3f", ns / 1e9 }')
  window_cpu_ns=$((user_ns + system_ns))
}

# --- The runs: for each mode, a churn window, then a quiet one as long, so that the
# ticks of both cost alike and the difference is the unrelated processes'.
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
for run in $(seq 1 "$runs"); do
  for mode in "${modes[@]}"; do
    progress "run $run/$runs, ${mode_name[$mode]}: canopy records sleep while $unrelated unrelated processes start"
    window "$mode" churn "$run" 0
    churn_cpu_ns=$window_cpu_ns
    progress "run $run/$runs, ${mode_name[$mode]}: canopy records sleep for as long (${window_seconds} s), quiet"
    window "$mode" quiet "$run" "$window_seconds"
    record "us/$mode" "$(awk -v c="$churn_cpu_ns" -v q="$window_cpu_ns" -v n="$unrelated" 'BEGIN { print (c - q) / n / 1000 }')"
  done
done

# --- The report.
fmt() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f", ns / 1e6 }'; }

report() {
  local mode median min max
  echo "# canopy benchmark results: unrelated processes"
  echo
  echo "Written by \`bench/unrelated.sh\` (\`make bench-unrelated\`); never edited by hand. What each figure means: bench/README.md."
  echo
  describe_machine
  echo "- Date: $started; load average at start: $load_at_start"
  echo "- Tree: \`canopy record -i 1000 -- sleep 3600\`, ended by SIGTERM to sleep. Unrelated: $jobs \`canopy_workload churn $per_job 0\`" \
    "side by side, each in a session of its own ($unrelated processes with them: fork, exec, exit). $runs runs of each" \
    "mode, each a churn window and then a quiet one as long."
  echo
  echo "| Figure | median | min | max | target | met |"
  echo "| --- | ---: | ---: | ---: | --- | --- |"
  for mode in "${modes[@]}"; do
    read -r median min max < <(stats "cpu/$mode/quiet")
    echo "| ${mode_name[$mode]}: recorder CPU (ms), quiet window | $(ms "$median") | $(ms "$min") | $(ms "$max") | | |"
    read -r median min max < <(stats "cpu/$mode/churn")
    echo "| ${mode_name[$mode]}: recorder CPU (ms), $unrelated unrelated processes | $(ms "$median") | $(ms "$min") | $(ms "$max") | | |"
    read -r median min max < <(stats "forks/$mode/quiet")
    echo "| ${mode_name[$mode]}: machine_forks, quiet window | $median | $min | $max | | |"
    read -r median min max < <(stats "forks/$mode/churn")
    echo "| ${mode_name[$mode]}: machine_forks, churn window | $median | $min | $max | | |"
    read -r median min max < <(stats "us/$mode")
    local target="" met=""
    if [ "$mode" = tree ]; then
      target="≤ $max_us_per_process"
      met=$(awk -v x="$median" -v y="$max_us_per_process" 'BEGIN { exit !(x <= y) }' && echo yes || echo "**no**")
    fi
    echo "| ${mode_name[$mode]}: recorder CPU per unrelated process (µs), (churn − quiet) / $unrelated |" \
      "$(fmt "$median") | $(fmt "$min") | $(fmt "$max") | $target | $met |"
  done
}

report >"$tmp/results.md"
cp "$tmp/results.md" "$repo/bench/unrelated-results.md"
cat "$tmp/results.md"
