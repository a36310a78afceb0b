# The two set-up commands are `make demo` and `make test`; both install what is missing
# first (make deps, or for the demo only what building needs), then build. See README.md.
BUILD ?= build
BUILD_ASAN ?= build-asan
JOBS ?= $(shell nproc)

PREFIX ?= /usr/local

.PHONY: deps deps-build build build-canopy docs-screenshot test test-asan install package demo bench bench-compare bench-idle bench-unrelated bench-viewer bench-logs bench-export bench-build bench-heap bench-cpu bench-metrics bench-live bench-live-trees clean

deps:
	@scripts/deps.sh

deps-build:
	@scripts/deps.sh build

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# canopy, its viewer module and its man page: what install, package and demo need,
# without the tests.
build-canopy: deps-build
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy_man

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The README's screenshot of the viewer (docs/viewer.png), taken anew by the browser test.
docs-screenshot: build
	@CANOPY_REFRESH_DOCS_SCREENSHOT=1 ctest --test-dir $(BUILD) -R '^web_browser_view$$' --output-on-failure

# The same tests under AddressSanitizer and UndefinedBehaviorSanitizer (CI runs both).
test-asan: deps
	@cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DCANOPY_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD_ASAN) -j $(JOBS)
	@ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

# bin/canopy, lib/canopy/canopy-web.so, the man page and bash completion under PREFIX
# (DESTDIR=... stages them elsewhere, as packagers do).
install: build-canopy
	@cmake --install $(BUILD) --prefix $(PREFIX)

# A .deb of the same files under /usr, in $(BUILD)/package/: apt install ./canopy_*.deb
package: build-canopy
	@cpack --config $(BUILD)/CPackConfig.cmake -B $(BUILD)/package >/dev/null
	@ls $(BUILD)/package/*.deb

# canopy and the workload it records, built once; no tests.
demo: build-canopy
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_workload
	@scripts/demo.sh $(BUILD)

bench: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@python3 bench/compare.py $(BUILD)
	@bench/run.sh $(BUILD)
	@bench/unrelated.sh $(BUILD)
	@bench/viewer.sh $(BUILD)
	@bench/log_import.sh $(BUILD)
	@bench/export.sh $(BUILD)
	@bench/build_cost.sh
	@python3 bench/heap.py $(BUILD)
	@python3 bench/cpu_profile.py $(BUILD)

# canopy against pidstat, atop, top, a ps loop and collectl on four workloads.
bench-compare: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@python3 bench/compare.py $(BUILD)

# The idle tree against the kernel floor, with and without unrelated processes.
bench-idle: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@bench/run.sh $(BUILD)

# What processes started outside the recorded tree cost the recorder, each.
bench-unrelated: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@bench/unrelated.sh $(BUILD)

# The viewer alone: load and query times on large recordings, in the server and in Chromium.
bench-viewer: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@bench/viewer.sh $(BUILD)

# What a fresh build costs in CPU seconds, ccache off (bench/build-results.md). Pass
# REVS="main~3 HEAD" to build those commits side by side instead of the working tree.
bench-build: deps
	@bench/build_cost.sh $(REVS)

# canopy log add: import rate and memory for each log format, on a 1 GB log.
bench-logs: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@bench/log_import.sh $(BUILD)

# canopy export per format and canopy import, on a large synthetic recording.
bench-export: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy_bench
	@bench/export.sh $(BUILD)

# The heap profiler against the program alone, heaptrack and massif, and on a real
# build (bench/heap-results.md); waits first, up to 20 minutes, for a quiet machine.
bench-heap: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy_bench_heap_ring canopy_bench_measured_run
	@python3 bench/heap.py $(BUILD)

# The CPU profiler at 99 Hz against the build alone and perf record -F 99 -g, on the
# build workload of bench-compare (bench/cpu-results.md).
bench-cpu: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy_bench_measured_run canopy_bench_spin canopy_workload
	@python3 bench/cpu_profile.py $(BUILD)

# /metrics' scrape time on a tree of 200 processes, early and late in a recording,
# beside prometheus-process-exporter (bench/metrics-results.md).
bench-metrics: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy_workload
	@bench/metrics.sh $(BUILD)

bench-live: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy-web
	@bench/live.py $(BUILD)

bench-live-trees: build
	@cmake --build $(BUILD) -j $(JOBS) --target canopy canopy-web
	@bench/live_tree_size.py $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) build-demo
