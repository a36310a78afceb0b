#!/usr/bin/env bash
# make demo: records a small pipeline (scripts/demo_workload.sh: processes that come and
# go, one of which takes 400 MiB and gives it back) with its output captured, adds its
# application log to the same timeline, then prints the summary, writes the HTML
# report, and says what to run next.
set -euo pipefail

build=${1:-build}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
canopy=$repo/$build/canopy
demo=$repo/build-demo
recording=$demo/pipeline.canopy
report=$demo/pipeline.html

mkdir -p "$demo"
echo "demo: recording a small pipeline (scripts/demo_workload.sh), its output captured"
"$canopy" record --quiet --force --capture-output -o "$recording" -- \
  "$repo/scripts/demo_workload.sh" "$repo/$build/tests/canopy_workload" "$demo/app.log"
echo "demo: adding its application log to the timeline"
"$canopy" log add "$recording" "$demo/app.log"
echo
"$canopy" report "$recording" --html "$report" --force
cat <<NEXT

Next:
  $build/canopy view ${recording#"$repo/"}      # the recording in your browser (served on 127.0.0.1)
  ${report#"$repo/"}                         # the same as one HTML file, to open or attach to a bug
NEXT
