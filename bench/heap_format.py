"""bench/heap.py's tables and targets: medians of the runs it measured, ratios against
the program alone, the issue's targets judged, and what a sampler can promise about
the leak at each rate. bench/README.md explains every figure."""

import math
import statistics
from dataclasses import dataclass

MIB = 1 << 20

# Targets from the issue (33).
MAX_CPU_RATIO_512K = 1.5
MAX_OFF_NS_PER_CALL = 3.0
MAX_PROFILER_BYTES = 32_000_000  # "32 MB", read as 10^6 bytes: the stricter reading
MIN_FOUND = {"512K": 19, "64K": 20}  # of 20 runs
MAX_BUILD_RATIO = 1.02
ESTIMATE_TOLERANCE = 0.5  # an estimate within 50% of the truth counts as a close one


@dataclass
class Context:
    started: str
    runs: int
    build_runs: int
    allocations: int
    load_before_wait: list
    waited_s: float
    quiet: bool
    quiet_load: float
    quiet_wait_s: int
    load_at_start: list
    load_at_end: list
    cpu_at_start: list
    cpu_at_end: list
    versions: dict
    ring_flags: str
    build_layers: list
    build_compiler: str
    machine: list  # bench/machine.sh's lines
    code: str  # the commit, and the heap library preloaded


def needed(key, runs):
    """The runs that must find the leak, for the target's count out of 20 scaled to runs."""
    return math.ceil(MIN_FOUND[key] * runs / 20)


def stolen_share(start, end):
    """The share of the machine's CPU time the hypervisor gave to other guests (steal)."""
    elapsed = [after - before for before, after in zip(start, end)]
    total = sum(elapsed)
    return 100.0 * elapsed[7] / total if total else 0.0


def spread(values, digits=3, scale=1.0):
    """'median (min–max)' of values, or the single value when they all agree."""
    if not values:
        return "—"
    shown = [f"{v * scale:.{digits}f}" for v in (statistics.median(values), min(values), max(values))]
    return shown[0] if shown[1] == shown[2] else f"{shown[0]} ({shown[1]}–{shown[2]})"


def poisson_cdf(k, mean):
    """P(N <= k) for N ~ Poisson(mean)."""
    if k < 0:
        return 0.0
    term = total = math.exp(-mean)
    for i in range(1, int(k) + 1):
        term *= mean / i
        total += term
    return total


def at_least(count, runs, p):
    """P(at least count successes of runs), each with probability p."""
    return sum(math.comb(runs, k) * p**k * (1 - p) ** (runs - k) for k in range(count, runs + 1))


def yes_no(met):
    return "yes" if met else "**no**"


class Report:
    def __init__(self, context, ring, build):
        self.c = context
        self.ring = ring
        self.build = build
        self.profiles = {}

    # The medians the targets use.
    def ok_runs(self, bench, key):
        return [run for run in bench.runs[key] if not run.failure]

    def values(self, bench, key, figure):
        runs = self.ok_runs(bench, key)
        if figure in ("cpu_s", "wall_s", "max_rss_kib"):
            return [getattr(run, figure) for run in runs]
        return [run.figures[figure] for run in runs if run.figures.get(figure) is not None]

    def median(self, bench, key, figure):
        values = self.values(bench, key, figure)
        return statistics.median(values) if values else None

    def ratio(self, bench, key, figure, base="bare"):
        value, reference = self.median(bench, key, figure), self.median(bench, base, figure)
        return value / reference if value is not None and reference else None

    def calls(self):
        return self.ring.truth["mallocs"] + self.ring.truth["frees"]

    def off_ns_per_call(self, base="bare"):
        off, bare = self.median(self.ring, "off", "process_cpu_s"), self.median(self.ring, base, "process_cpu_s")
        return (off - bare) * 1e9 / self.calls() if off is not None and bare is not None else None

    def cpu_ratio_512k(self):
        return self.ratio(self.ring, "512K", "cpu_s")

    def profiler_bytes(self, key):
        """The library's resident memory in the profiled process (its VmHWM over the
        program alone's) and the recorder's own max RSS."""
        extra = self.median(self.ring, key, "process_hwm_kib") - self.median(self.ring, "bare", "process_hwm_kib")
        recorder = self.median(self.ring, key, "recorder_max_rss_kib")
        return extra * 1024, recorder * 1024

    def configs_to_profile(self):
        """The configurations whose CPU target was missed: a perf profile shows why."""
        keys = []
        ratio = self.cpu_ratio_512k()
        if ratio is not None and ratio > MAX_CPU_RATIO_512K:
            keys.append("512K")
        off = self.off_ns_per_call()
        if off is not None and off > MAX_OFF_NS_PER_CALL:
            keys.append("off")
        return keys

    def add_profile(self, key, lines):
        self.profiles[key] = lines

    # The text.
    def header(self):
        c = self.c
        stolen = stolen_share(c.cpu_at_start, c.cpu_at_end)
        if not c.quiet and c.quiet_wait_s == 0:
            wait = "not waited for (BENCH_HEAP_QUIET_WAIT_S=0)"
        elif c.waited_s < 1:
            wait = f"under {c.quiet_load} at once"
        elif c.quiet:
            wait = f"waited {c.waited_s / 60:.1f} min for it to fall under {c.quiet_load} (it was {c.load_before_wait[0]})"
        else:
            wait = (f"it stayed at or above {c.quiet_load} for the {c.waited_s / 60:.0f} min the bench waits "
                    f"(it was {c.load_before_wait[0]}): measured anyway")
        truth = self.ring.truth
        return [
            "# canopy's heap profiler: benchmark results",
            "",
            "Written by `bench/heap.py` (`make bench-heap`); never edited by hand. What each figure means: "
            "bench/README.md.",
            "",
        ] + c.machine + [
            f"- Date: {c.started}; load average at start: {' '.join(c.load_at_start)}, at end: "
            f"{' '.join(c.load_at_end)} (1-minute load: {wait})",
            f"- CPU time stolen by the hypervisor during the run (/proc/stat steal): {stolen:.1f}%",
            f"- canopy: {c.code}",
            f"- Peers: {c.versions['heaptrack']}, {c.versions['valgrind']}; compiler: {c.versions['compiler']}",
            "",
            "## The ring: 10 M allocations, one leak",
            "",
            f"`canopy_bench_heap_ring` (bench/heap_ring.cpp, built with `{c.ring_flags}`): "
            f"{truth['mallocs']:,} mallocs of 16–271 bytes through a 64-slot ring and "
            f"{truth['frees']:,} frees ({self.calls():,} calls), leaking every 1,000th block from a call "
            f"site of its own (`leak_one`): {truth['leaked_blocks']:,} blocks, {truth['leaked_bytes']:,} bytes "
            f"({truth['leaked_bytes'] / MIB:.2f} MiB), the only memory it holds at its exit. "
            f"{c.runs} runs of each configuration, interleaved; figures are medians, with (min–max).",
            "",
        ]

    def ring_table(self):
        lines = [
            "| Configuration | Runs that failed | CPU s, whole tree | × alone | CPU s, profiled process | × alone "
            "| CPU s, rest of the tree | Wall s | × alone | Profiled process max RSS MiB | Largest process of the tree, "
            "max RSS MiB |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for config in self.ring.configs:
            key = config.key
            runs = self.ring.runs[key]
            failed = sum(1 for run in runs if run.failure)
            whole = self.values(self.ring, key, "cpu_s")
            process = self.values(self.ring, key, "process_cpu_s")
            ok = self.ok_runs(self.ring, key)
            rest = [run.cpu_s - run.figures["process_cpu_s"] for run in ok]
            lines.append(
                f"| {config.label} | {failed} of {len(runs)} | {spread(whole)} | {self.fmt_ratio(self.ring, key, 'cpu_s')} "
                f"| {spread(process)} | {self.fmt_ratio(self.ring, key, 'process_cpu_s')} "
                f"| {spread(rest)} | {spread(self.values(self.ring, key, 'wall_s'))} "
                f"| {self.fmt_ratio(self.ring, key, 'wall_s')} "
                f"| {spread(self.values(self.ring, key, 'process_hwm_kib'), 1, 1 / 1024)} "
                f"| {spread(self.values(self.ring, key, 'max_rss_kib'), 1, 1 / 1024)} |")
        return lines

    def fmt_ratio(self, bench, key, figure, base="bare"):
        ratio = self.ratio(bench, key, figure, base)
        return "—" if ratio is None else f"{ratio:.2f}"

    def failures(self, bench, name):
        lines = []
        for config in bench.configs:
            seen = {}
            for run in bench.runs[config.key]:
                if run.failure:
                    seen[run.failure] = seen.get(run.failure, 0) + 1
            for failure, count in seen.items():
                lines.append(f"- {name}, {config.label}: {count} run{'s' if count > 1 else ''} failed: `{failure}`")
        return lines

    def off_lines(self):
        truth_calls = self.calls()
        bare = self.values(self.ring, "bare", "process_cpu_s")
        noise_ns = (max(bare) - min(bare)) * 1e9 / truth_calls if bare else 0
        return [
            f"**Sampling off, per call**: (the profiled process's CPU under `--heap=off` − the program alone's), "
            f"medians, / {truth_calls:,} calls = **{self.off_ns_per_call():.2f} ns** "
            f"(against the program under `canopy record` without `--heap`: {self.off_ns_per_call('canopy'):.2f} ns). "
            f"The program alone's runs ranged over {noise_ns:.1f} ns per call: the VM's noise.",
        ]

    def memory_lines(self):
        lines = ["**Profiler memory** (medians): the library's resident memory in the profiled process (its "
                 "VmHWM over the program alone's), and the recorder's own max RSS (canopy record without "
                 f"`--heap`: {self.median(self.ring, 'canopy', 'recorder_max_rss_kib') / 1024:.1f} MiB):", ""]
        for key in ("off", "512K", "64K"):
            extra, recorder = self.profiler_bytes(key)
            lines.append(f"- {key}: {extra / MIB:.1f} MiB in the process + {recorder / MIB:.1f} MiB recorder = "
                         f"{(extra + recorder) / MIB:.1f} MiB")
        return lines

    def detection_rows(self):
        truth = self.ring.truth["leaked_bytes"]
        lines = [
            f"**The leak** ({truth:,} bytes from `leak_one`): in each run with `--heap`, `canopy heap --json` of "
            "the recording; a run *finds* it when a stack through `leak_one` holds memory at the process's exit, "
            f"and its estimate is *close* when within {ESTIMATE_TOLERANCE:.0%} of the truth. A byte sampler of "
            "rate R samples the leak's B bytes N times, N a Poisson variable of mean B / R (each sample of a "
            "small block stands for about R bytes), so it finds the leak with probability 1 − exp(−B / R) and "
            "is close when N·R lies within 50% of B:",
            "",
            "| Rate | Runs that found it | P(find) per run | P(target's count) | Runs close | P(close) per run "
            "| Estimate at exit, MiB |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for key in ("512K", "64K"):
            found, close, estimates, runs = self.detection(key)
            rate = next(c.heap_rate for c in self.ring.configs if c.key == key)
            mean = truth / rate
            p_find = -math.expm1(-mean)
            low, high = math.ceil((1 - ESTIMATE_TOLERANCE) * mean), math.floor((1 + ESTIMATE_TOLERANCE) * mean)
            p_close = poisson_cdf(high, mean) - poisson_cdf(low - 1, mean)
            count = needed(key, runs)
            lines.append(
                f"| {key} | {found} of {runs} | {p_find:.4f} | {at_least(count, runs, p_find):.3f} "
                f"(≥ {count}) | {close} of {runs} | {p_close:.3f} | {spread(estimates, 2, 1 / MIB)} |")
        return lines

    def detection(self, key):
        truth = self.ring.truth["leaked_bytes"]
        runs = self.ring.runs[key]
        estimates = [run.figures["leak_estimate"] for run in runs
                     if not run.failure and run.figures.get("leak_estimate")]
        found = len(estimates)
        close = sum(1 for e in estimates if abs(e - truth) <= ESTIMATE_TOLERANCE * truth)
        return found, close, estimates, len(runs)

    def build_section(self):
        c = self.c
        lines = [
            "## A real build",
            "",
            f"Three layers of canopy ({', '.join(c.build_layers)}: one unity source each, -O2 -g, "
            f"{c.build_compiler}) compiled by `make -s -j2`, with the build directory's own commands; every "
            "process of the tree (make, sh, the compiler driver, cc1plus, as) profiled. One unmeasured run "
            f"first; then {c.build_runs} runs of each configuration, interleaved; objects removed (not measured) "
            "before each.",
            "",
            "| Configuration | Runs that failed | Wall s | × alone | × canopy record | CPU s, whole tree | × alone "
            "| × canopy record | Processes profiled | Samples |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for config in self.build.configs:
            key = config.key
            runs = self.build.runs[key]
            failed = sum(1 for run in runs if run.failure)
            vs_canopy = key != "bare"
            lines.append(
                f"| {config.label} | {failed} of {len(runs)} | {spread(self.values(self.build, key, 'wall_s'), 2)} "
                f"| {self.fmt_ratio(self.build, key, 'wall_s')} "
                f"| {self.fmt_ratio(self.build, key, 'wall_s', 'canopy') if vs_canopy else ''} "
                f"| {spread(self.values(self.build, key, 'cpu_s'), 2)} | {self.fmt_ratio(self.build, key, 'cpu_s')} "
                f"| {self.fmt_ratio(self.build, key, 'cpu_s', 'canopy') if vs_canopy else ''} "
                f"| {spread(self.values(self.build, key, 'images'), 0)} "
                f"| {spread(self.values(self.build, key, 'samples'), 0)} |")
        return lines

    def targets(self):
        lines = ["## Targets", ""]
        ratio = self.cpu_ratio_512k()
        process_ratio = self.ratio(self.ring, "512K", "process_cpu_s")
        lines.append(f"- CPU at 512 KiB ≤ {MAX_CPU_RATIO_512K}× the program alone (whole tree, the recorder "
                     f"included): {ratio:.2f}×: {yes_no(ratio <= MAX_CPU_RATIO_512K)} (the profiled process "
                     f"alone: {process_ratio:.2f}×; the whole tree against canopy record without --heap: "
                     f"{self.fmt_ratio(self.ring, '512K', 'cpu_s', 'canopy')}×)")
        off = self.off_ns_per_call()
        lines.append(f"- Sampling off ≤ {MAX_OFF_NS_PER_CALL:.0f} ns per call: {off:.2f} ns: "
                     f"{yes_no(off <= MAX_OFF_NS_PER_CALL)}")
        for key in ("512K", "64K"):
            extra, recorder = self.profiler_bytes(key)
            total = extra + recorder
            lines.append(f"- Profiler memory ≤ 32 MB (32,000,000 bytes) at {key}: {total / 1e6:.1f} MB "
                         f"(process {extra / 1e6:.1f} + recorder {recorder / 1e6:.1f}): "
                         f"{yes_no(total <= MAX_PROFILER_BYTES)}")
        for key in ("512K", "64K"):
            found, close, _, runs = self.detection(key)
            lines.append(f"- The leak found at {key} in ≥ {MIN_FOUND[key]} of 20 runs: {found} of {runs}: "
                         f"{yes_no(found >= needed(key, runs))} (close estimate in {close})")
        for figure, name in (("wall_s", "wall"), ("cpu_s", "CPU")):
            build_ratio = self.ratio(self.build, "512K", figure)
            shown = "—" if build_ratio is None else f"{build_ratio:.3f}×"
            met = build_ratio is not None and build_ratio <= MAX_BUILD_RATIO and not self.build_failed()
            lines.append(f"- A real build, {name} ≤ {MAX_BUILD_RATIO}× unprofiled (the build alone): {shown} "
                         f"(against canopy record without --heap: {self.fmt_ratio(self.build, '512K', figure, 'canopy')}×)"
                         f": {yes_no(met)}" + (" (runs failed: see above)" if self.build_failed() else ""))
        return lines

    def build_failed(self):
        return any(run.failure for run in self.build.runs["512K"])

    def profile_lines(self):
        lines = []
        labels = {c.key: c.label for c in self.ring.configs}
        for key, profile in self.profiles.items():
            lines += ["", f"Where the CPU of `{labels[key]}` goes (one unmeasured run under `perf record -F 4999`, "
                      "`perf report --no-children --sort comm,dso,sym`, entries of 2% and more):", "", "```"]
            lines += profile if profile else ["perf is not installed"]
            lines.append("```")
        return lines

    def text(self):
        failures = self.failures(self.ring, "ring") + self.failures(self.build, "build")
        lines = (self.header() + self.ring_table() + [""] + self.off_lines() + [""] + self.memory_lines() + [""]
                 + self.detection_rows() + [""] + self.build_section())
        if failures:
            lines += ["", "Failed runs (left out of every median):", ""] + failures
        lines += [""] + self.targets() + self.profile_lines()
        return "\n".join(lines) + "\n"
