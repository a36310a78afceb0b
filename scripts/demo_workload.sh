#!/usr/bin/env bash
# The workload `make demo` records: a small pipeline whose processes come and go, as a
# CI job's or a batch job's do. It prints what it does (captured by --capture-output),
# writes an application log with timestamps (added to the recording afterwards), and
# marks its stages (CANOPY_MARK, set by canopy record). About 10 s in all.
#
#   fetch      40 brief downloads, one after another (each a process of 50 ms)
#   transform  4 sort workers in parallel; one of them takes 400 MiB and gives it back
#   index      a CPU-bound indexer (2 s of CPU)
#   publish    3 brief uploads
#
# usage: demo_workload.sh CANOPY_WORKLOAD APP_LOG
set -euo pipefail
workload=$1 app_log=$2
: >"$app_log"

# Each step under its own name, as a real pipeline's programs have: a link to the
# workload program is named after the step, and a process is named after the file it
# executed.
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for step in download sort-worker indexer upload; do
  ln -s "$workload" "$bin/$step"
done

log() {
  echo "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >>"$app_log"
}
stage() {
  echo "== $1"
  log "INFO stage $1 started"
  # What `canopy mark` does, without needing canopy on PATH.
  [ -z "${CANOPY_MARK:-}" ] || echo "stage $1" >>"$CANOPY_MARK"
}

stage fetch
for i in $(seq 1 40); do
  "$bin/download" linger 50 0
  [ $((i % 10)) -eq 0 ] && echo "fetched $i of 40 files" && log "INFO fetch: $i of 40 files"
done

stage transform
"$bin/sort-worker" hold 60 4000 &
"$bin/sort-worker" hold 80 3000 &
"$bin/sort-worker" hold 40 5000 &
log "INFO transform: one sort worker takes the large batch"
# 400 MiB touched over 2 s of its own CPU, given back, then 2 s asleep.
"$bin/sort-worker" wave 400 2000 2000 &
wait
echo "transform done"
log "WARN transform: the large batch needed 400 MiB"

stage index
"$bin/indexer" spin 2000
echo "index built"
log "INFO index: built"

stage publish
for i in 1 2 3; do
  "$bin/upload" linger 200 0
  echo "uploaded part $i of 3"
done
log "INFO publish: done"
echo "pipeline finished"
