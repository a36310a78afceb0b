#!/usr/bin/env python3
"""make bench-heap: what the heap profiler (`canopy record --heap`) costs, against the
program alone, heaptrack and valgrind's massif, and whether it finds a known leak.
Prints the machine and the tables, and writes the same text to bench/heap-results.md.
bench/README.md explains every figure.

    bench/heap.py BUILD_DIR

Two workloads, each with its configurations interleaved (run 1 of each, then run 2...):
- the ring (bench/heap_ring.cpp): 10 M mallocs of 16-271 bytes through a 64-slot ring,
  leaking 1 in 1,000 from one call site; the profiler's cost per call, and the leak;
- a real build: three layers of canopy compiled with `make -j2`, from the build
  directory's compile_commands.json.

Environment: BENCH_HEAP_RUNS (20 runs of each ring configuration),
BENCH_HEAP_ALLOCATIONS (10000000), BENCH_HEAP_BUILD_RUNS (5),
BENCH_HEAP_QUIET_WAIT_S (1200: how long to wait for a 1-minute load average under
BENCH_HEAP_QUIET_LOAD, 1.0, before measuring; 0 to start at once)."""

import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass, field
from datetime import datetime, timezone

import heap_format

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "bench", "heap-results.md")
# The layers of canopy the build workload compiles: about 30 s of CPU here.
BUILD_LAYERS = ["canopy_symbolize", "canopy_analyze", "canopy_report"]
LEAK_FUNCTION = "leak_one"  # bench/heap_ring.cpp's leak site
QUIET_POLL_S = 30


def progress(text):
    print(f"bench: {text}", file=sys.stderr, flush=True)


def fail(text):
    print(f"bench: {text}", file=sys.stderr)
    sys.exit(1)


@dataclass
class Run:
    """One measured run: wait4's figures for the whole tree, and what it failed with."""

    wall_s: float
    cpu_s: float  # user + system of the process started and every child it waited for
    max_rss_kib: int  # the largest process of the tree
    failure: str = ""  # empty when it exited 0
    figures: dict = field(default_factory=dict)  # what the configuration adds


def failure_line(stderr_path):
    """The line of a failed run's stderr that says most: the first that names an error
    or a fault (make's own last line only says it waited for the other jobs)."""
    with open(stderr_path, errors="replace") as stderr:
        lines = [line.strip() for line in stderr if line.strip()]
    for line in lines:
        if any(word in line.lower() for word in ("fault", "error", "killed", "abort")):
            return line
    return lines[-1] if lines else ""


def run_measured(launcher, argv, prefix, cwd=None):
    """Runs argv through bench/measured_run.cpp, in a process group of its own: the wall
    time, and wait4's figures for it and every child it waited for."""
    figures_path = prefix + ".wait4"
    with open(prefix + ".stderr", "w") as stderr:
        subprocess.run([launcher, figures_path, "--"] + argv, stdout=subprocess.DEVNULL, stderr=stderr,
                       start_new_session=True, cwd=cwd, check=True)
    with open(figures_path) as figures:
        waited = {key: int(value) for key, value in (item.split("=") for item in figures.read().split())}
    failure = ""
    if waited["status"] != 0:
        line = failure_line(prefix + ".stderr")
        failure = f"wait status {waited['status']}" + (f": {line}" if line else "")
    return Run(waited["wall_ns"] / 1e9, (waited["cpu_user_ns"] + waited["cpu_system_ns"]) / 1e9,
               waited["max_rss_kib"], failure)


def recording_meta(path):
    """The figures canopy wrote into a recording's meta table at its end."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    needed = ("tree_cpu_user_ns", "tree_cpu_system_ns", "recorder_max_rss_bytes")
    if any(key not in meta for key in needed):
        fail(f"{path}: its meta table lacks one of {', '.join(needed)}")
    return meta


def read_ring_report(path):
    """bench/heap_ring.cpp's one line of key=value."""
    with open(path) as report:
        return {key: int(value) for key, value in (item.split("=") for item in report.read().split())}


def heap_json(canopy, path):
    return json.loads(subprocess.run([canopy, "heap", "--json", "--top", "50", path], check=True,
                                     capture_output=True, text=True).stdout)


def leak_estimate(profile):
    """The leak site's estimated bytes in use at the profiled process's exit, or None
    when no stack of that moment passes through the leak function."""
    images = [image for image in profile["images"] if image["at_end"] is not None]
    if len(images) != 1:
        return None
    for stack in images[0]["at_end"]["stacks"]:
        if any(LEAK_FUNCTION in frame["function"] for frame in stack["frames"]):
            return stack["in_use_bytes"]
    return None


class Configuration:
    """One way of running a workload: a label, and the command around it."""

    def __init__(self, key, label, wrap, canopy=False, heap_rate=None):
        self.key = key
        self.label = label
        self.wrap = wrap  # (workload argv, run's file prefix) -> argv
        self.canopy = canopy  # writes a recording at prefix + ".canopy"
        self.heap_rate = heap_rate  # bytes per sample, when it samples


def configurations(canopy, with_peers):
    def record(flags):
        return lambda argv, prefix: [canopy, "record", "-q", "-f", "-o", prefix + ".canopy"] + flags + ["--"] + argv

    configs = [
        Configuration("bare", "the program alone", lambda argv, prefix: argv),
        Configuration("canopy", "canopy record, no --heap", record([]), canopy=True),
        Configuration("off", "canopy record --heap=off", record(["--heap=off"]), canopy=True),
        Configuration("512K", "canopy record --heap (512K)", record(["--heap"]), canopy=True, heap_rate=512 << 10),
        Configuration("64K", "canopy record --heap=64K", record(["--heap=64K"]), canopy=True, heap_rate=64 << 10),
    ]
    # heaptrack's script opens heaptrack_gui on what it wrote when that is installed:
    # an analysis, not a recording, so heaptrack is left out then.
    if with_peers and shutil.which("heaptrack") and not shutil.which("heaptrack_gui"):
        configs.append(Configuration("heaptrack", "heaptrack (recording only)",
                                     lambda argv, prefix: ["heaptrack", "-o", prefix + ".heaptrack"] + argv))
    if with_peers and shutil.which("valgrind"):
        configs.append(Configuration("massif", "valgrind --tool=massif", lambda argv, prefix: [
            "valgrind", "--tool=massif", f"--massif-out-file={prefix}.massif"] + argv))
    return configs


def remove_outputs(prefix):
    for suffix in (".wait4", ".canopy", ".canopy-wal", ".canopy-shm", ".heaptrack.zst", ".heaptrack.gz", ".massif"):
        if os.path.exists(prefix + suffix):
            os.remove(prefix + suffix)


class RingBench:
    """The ring: every configuration, `runs` times, interleaved."""

    def __init__(self, build_dir, tmp, allocations):
        self.canopy = os.path.join(build_dir, "canopy")
        self.program = os.path.join(build_dir, "bench", "canopy_bench_heap_ring")
        self.launcher = os.path.join(build_dir, "bench", "canopy_bench_measured_run")
        self.tmp = tmp
        self.allocations = allocations
        self.configs = configurations(self.canopy, with_peers=True)
        self.runs = {config.key: [] for config in self.configs}
        self.truth = None  # the program's own account of one run, the same in every run

    def run_once(self, config):
        prefix = os.path.join(self.tmp, f"ring-{config.key}")
        report_path = prefix + ".report"
        if os.path.exists(report_path):
            os.remove(report_path)
        argv = config.wrap([self.program, report_path, str(self.allocations)], prefix)
        run = run_measured(self.launcher, argv, prefix, cwd=self.tmp)
        if not run.failure:
            self.read_figures(config, prefix, report_path, run)
        remove_outputs(prefix)
        if config.key == "bare" and run.failure:
            fail(f"the ring alone failed ({run.failure}): {shlex.join(argv)}")
        self.runs[config.key].append(run)

    def read_figures(self, config, prefix, report_path, run):
        report = read_ring_report(report_path)
        truth = {key: report[key] for key in ("mallocs", "frees", "leaked_blocks", "leaked_bytes", "checksum")}
        if self.truth is None:
            self.truth = truth
        elif truth != self.truth:
            fail(f"{config.label}: the ring did other work than in the first run: {truth} against {self.truth}")
        run.figures["process_cpu_s"] = (report["cpu_user_ns"] + report["cpu_system_ns"]) / 1e9
        run.figures["process_hwm_kib"] = report["vm_hwm_kib"]
        if config.canopy:
            path = prefix + ".canopy"
            meta = recording_meta(path)
            tree_s = (int(meta["tree_cpu_user_ns"]) + int(meta["tree_cpu_system_ns"])) / 1e9
            run.figures["recorder_cpu_s"] = run.cpu_s - tree_s
            run.figures["recorder_max_rss_kib"] = int(meta["recorder_max_rss_bytes"]) // 1024
            if config.heap_rate:
                run.figures["leak_estimate"] = leak_estimate(heap_json(self.canopy, path))

    def measure(self, runs):
        for number in range(1, runs + 1):
            for config in self.configs:
                progress(f"ring run {number}/{runs}: {config.label}")
                self.run_once(config)


class BuildBench:
    """A real build: three layers of canopy, compiled as make -j2 would, from the
    commands of the build directory's compile_commands.json (ccache is a launcher CMake
    leaves out of that file, so every run compiles)."""

    def __init__(self, build_dir, tmp):
        self.canopy = os.path.join(build_dir, "canopy")
        self.launcher = os.path.join(build_dir, "bench", "canopy_bench_measured_run")
        self.tmp = tmp
        self.dir = os.path.join(tmp, "build")
        os.makedirs(self.dir)
        self.objects = self.write_makefile(build_dir)
        self.configs = [c for c in configurations(self.canopy, with_peers=False) if c.key in ("bare", "canopy", "512K")]
        self.runs = {config.key: [] for config in self.configs}

    def write_makefile(self, build_dir):
        with open(os.path.join(build_dir, "compile_commands.json")) as commands:
            entries = json.load(commands)
        rules = []
        objects = []
        for layer in BUILD_LAYERS:
            found = [e for e in entries if f"/{layer}.dir/" in e["file"]]
            if len(found) != 1:
                fail(f"compile_commands.json: {len(found)} entries for {layer}, not one (a unity build is assumed)")
            argv = shlex.split(found[0]["command"])
            out = os.path.join(self.dir, layer + ".o")
            argv[argv.index("-o") + 1] = out
            objects.append(out)
            command = shlex.join(argv).replace("$", "$$")
            rules.append(f"{out}:\n\tcd {shlex.quote(found[0]['directory'])} && {command}\n")
        self.compiler = shlex.split(entries[0]["command"])[0]
        with open(os.path.join(self.dir, "Makefile"), "w") as makefile:
            makefile.write(f"all: {' '.join(objects)}\n\n" + "\n".join(rules))
        return objects

    def argv(self):
        return ["make", "-s", "-j2", "-C", self.dir]

    def clean(self):
        for path in self.objects:
            if os.path.exists(path):
                os.remove(path)

    def run_once(self, config):
        self.clean()
        prefix = os.path.join(self.tmp, f"build-{config.key}")
        run = run_measured(self.launcher, config.wrap(self.argv(), prefix), prefix)
        missing = [os.path.basename(path) for path in self.objects if not os.path.exists(path)]
        if not run.failure and missing:
            run.failure = f"no {', '.join(missing)}"
        if not run.failure and config.heap_rate:
            profile = heap_json(self.canopy, prefix + ".canopy")
            run.figures["images"] = len(profile["images"])
            run.figures["samples"] = sum(image["samples"] for image in profile["images"])
        if config.key == "bare" and run.failure:
            fail(f"the build alone failed ({run.failure}): {shlex.join(self.argv())}")
        remove_outputs(prefix)
        self.runs[config.key].append(run)

    def measure(self, runs):
        progress("build: one unmeasured run, to warm the page cache")
        self.clean()
        run_measured(self.launcher, self.argv(), os.path.join(self.tmp, "build-warm"))
        for number in range(1, runs + 1):
            for config in self.configs:
                progress(f"build run {number}/{runs}: {config.label}")
                self.run_once(config)


def describe_machine():
    return subprocess.run(["bash", "-c", f"source '{REPO}/bench/machine.sh' && describe_machine"],
                          capture_output=True, text=True, check=True).stdout.rstrip("\n").split("\n")


def load_average():
    with open("/proc/loadavg") as loadavg:
        return loadavg.read().split()[:3]


def wait_for_quiet(max_wait_s, max_load):
    """Waits, up to max_wait_s, for a 1-minute load average under max_load; returns how
    long it waited and whether the machine got that quiet."""
    started = time.monotonic()
    while float(load_average()[0]) >= max_load:
        waited = time.monotonic() - started
        if waited >= max_wait_s:
            return waited, False
        progress(f"load average {' '.join(load_average())}: waiting for under {max_load} "
                 f"({waited:.0f} of {max_wait_s} s)")
        time.sleep(QUIET_POLL_S)
    return time.monotonic() - started, True


def machine_cpu_times():
    """/proc/stat's first line: the machine's CPU time so far, in ticks, by kind."""
    with open("/proc/stat") as stat:
        return [int(value) for value in stat.readline().split()[1:9]]


def perf_profile(argv, tmp):
    """`perf report` of one unmeasured run of argv: the shared objects and functions
    that held the most samples, or None without perf."""
    if not shutil.which("perf"):
        return None
    data = os.path.join(tmp, "perf.data")
    record = subprocess.run(["perf", "record", "-q", "-F", "4999", "-o", data, "--"] + argv,
                            capture_output=True, text=True, cwd=tmp)
    if record.returncode != 0:
        return [f"perf record failed: {record.stderr.strip().splitlines()[-1:]}"]
    report = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "--sort", "comm,dso,sym",
                             "--percent-limit", "2"], capture_output=True, text=True)
    lines = [line.rstrip() for line in report.stdout.splitlines() if line.strip() and not line.startswith("#")]
    os.remove(data)
    return lines[:14]


def tool_versions():
    def first_line(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
        except (OSError, IndexError):
            return "not installed"

    return {"heaptrack": first_line(["heaptrack", "--version"]), "valgrind": first_line(["valgrind", "--version"]),
            "compiler": first_line(["c++", "--version"])}


def code_version(build_dir):
    """The commit measured, and the heap library the runs preloaded."""
    git = ["git", "-C", REPO]
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(git + ["status", "--porcelain", "--untracked-files=no"], capture_output=True,
                           text=True).stdout.strip()
    library = os.environ.get("CANOPY_HEAP_LIBRARY") or os.path.join(build_dir, "libcanopy-heap.so")
    return (f"commit {commit or 'unknown'}{' with uncommitted changes' if dirty else ''}; "
            f"heap library {library}" + (" (CANOPY_HEAP_LIBRARY)" if os.environ.get("CANOPY_HEAP_LIBRARY") else ""))


def compile_flags(build_dir, target):
    """The flags the build compiled TARGET with, from compile_commands.json."""
    with open(os.path.join(build_dir, "compile_commands.json")) as commands:
        for entry in json.load(commands):
            if f"/{target}.dir/" in entry["file"]:
                argv = shlex.split(entry["command"])
                keep = [a for a in argv[1:] if a.startswith(("-O", "-g", "-f", "-m", "-std", "-D"))]
                return " ".join(keep)
    return "unknown"


def main():
    if len(sys.argv) != 2:
        fail("usage: bench/heap.py BUILD_DIR")
    build_dir = os.path.abspath(sys.argv[1])
    runs = int(os.environ.get("BENCH_HEAP_RUNS", "20"))
    allocations = int(os.environ.get("BENCH_HEAP_ALLOCATIONS", "10000000"))
    build_runs = int(os.environ.get("BENCH_HEAP_BUILD_RUNS", "5"))
    quiet_wait_s = int(os.environ.get("BENCH_HEAP_QUIET_WAIT_S", "1200"))
    quiet_load = float(os.environ.get("BENCH_HEAP_QUIET_LOAD", "1.0"))
    for binary in ("canopy", "libcanopy-heap.so", "bench/canopy_bench_heap_ring", "bench/canopy_bench_measured_run",
                   "compile_commands.json"):
        if not os.path.exists(os.path.join(build_dir, binary)):
            fail(f"missing {os.path.join(build_dir, binary)} (run: make bench-heap)")

    with tempfile.TemporaryDirectory(prefix="canopy-heap-bench.") as tmp:
        ring = RingBench(build_dir, tmp, allocations)
        build = BuildBench(build_dir, tmp)
        load_before_wait = load_average()
        waited_s, quiet = wait_for_quiet(quiet_wait_s, quiet_load)
        started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        load_at_start = load_average()
        cpu_at_start = machine_cpu_times()
        ring.measure(runs)
        build.measure(build_runs)
        load_at_end = load_average()
        cpu_at_end = machine_cpu_times()

        context = heap_format.Context(
            started=started, runs=runs, build_runs=build_runs, allocations=allocations,
            load_before_wait=load_before_wait, waited_s=waited_s, quiet=quiet, quiet_load=quiet_load,
            quiet_wait_s=quiet_wait_s,
            load_at_start=load_at_start, load_at_end=load_at_end, cpu_at_start=cpu_at_start, cpu_at_end=cpu_at_end,
            versions=tool_versions(), ring_flags=compile_flags(build_dir, "canopy_bench_heap_ring"),
            build_layers=BUILD_LAYERS, build_compiler=build.compiler, machine=describe_machine(),
            code=code_version(build_dir))
        report = heap_format.Report(context, ring, build)
        for key in report.configs_to_profile():
            config = next(c for c in ring.configs if c.key == key)
            prefix = os.path.join(tmp, "profile")
            argv = config.wrap([ring.program, prefix + ".report", str(allocations)], prefix)
            progress(f"perf profile of {config.label} (not measured)")
            report.add_profile(key, perf_profile(argv, tmp))
            remove_outputs(prefix)
        output = report.text()
        with open(RESULTS, "w") as results:
            results.write(output)
        print(output, end="")


if __name__ == "__main__":
    main()
