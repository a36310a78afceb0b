#!/usr/bin/env bash
# make demo: records a real workload, canopy's own build (a tree of many short-lived
# compiler processes), then prints the summary and where the recording is.
set -euo pipefail

build=${1:-build}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
canopy=$repo/$build/canopy
demo=$repo/build-demo
recording=$demo/canopy-build.canopy

rm -rf "$demo"
cmake -S "$repo" -B "$demo" -DBUILD_TESTING=OFF >/dev/null
echo "demo: recording a build of canopy itself (cmake --build build-demo -j$(nproc))"
# The build's own output is dropped; canopy's summary (on stderr) is the point.
"$canopy" record --force -o "$recording" -- cmake --build "$demo" -j"$(nproc)" >/dev/null
