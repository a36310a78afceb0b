#!/usr/bin/env python3
"""make bench-cpu: what the CPU profiler (`canopy record --cpu-profile`, 99 Hz) costs on
the build workload of `make bench` (bench/workloads.py: a generated C project of 25
files, make -j2), against `perf record -F 99 -g` on the same workload. Prints the
machine and the table, and writes the same text to bench/cpu-results.md.
bench/README.md explains every figure.

    bench/cpu_profile.py BUILD_DIR

Four configurations, interleaved (round 1 of each, then round 2...): the build alone,
under `canopy record` (memory only), under `canopy record --cpu-profile`, and under
`perf record -F 99 -g`. Each run is measured by bench/measured_run.cpp: wall time, and
the user and system time of the tool and the whole tree it waited for.

Then the profiler's cost is taken apart, so that it can be judged more finely than a
difference of two builds allows: the kernel's work per sample, measured on a fixed loop
sampled at a high rate and not sampled (canopy_bench_spin, bench/spin.c); its work per
process at fork, exec and exit, measured on a storm of short processes (canopy_workload
churn) profiled and not; and the recorder's own CPU. From the build's samples and
processes (counted in its recordings) these predict what the profiler costs the build.

Last, the same project built by clang, under `canopy record` with and without the
profile: Debian's LLVM tools are linked by gold, which puts the table of their CFI after
the CFI, the layout on which libdw would scan for each frame (src/unwind/object_files.cpp).

Environment: BENCH_CPU_RUNS (8 rounds of the build), BENCH_CPU_PART_RUNS (15 rounds of
the loop and the storm), BENCH_CPU_CLANG_RUNS (5 rounds of the build by clang)."""

import math
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from contextlib import closing
from datetime import datetime, timezone

import workloads
from heap import describe_machine, fail, load_average, machine_cpu_times, progress, run_measured

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "bench", "cpu-results.md")
CONFIGS = [
    ("unrecorded", "the build alone"),
    ("record", "canopy record (memory and CPU time, no profile)"),
    ("cpu-profile", "canopy record --cpu-profile (99 Hz)"),
    ("perf", "perf record -F 99 -g"),
]
# The loop's work (about 2 s of CPU here) and its sampling rate: 50 times the build's, so
# that the kernel's part comes out some 50 times larger than in the build, over the same
# noise. The storm's processes: each a fork, an exec of canopy_workload and an exit.
SPIN_ITERATIONS = 2_000_000_000
SPIN_HZ = 4999
STORM_PROCESSES = 2000
# Each part's interval is taken at 1 - 0.05/3, so that the sum of the three parts' lows
# and highs holds the sum with a probability of at least 95% (Bonferroni).
PART_CONFIDENCE = 1 - 0.05 / 3
TARGET_PERCENT = 1.0


def wrap(key, canopy, argv, prefix, hz=99):
    if key == "record":
        return [canopy, "record", "-q", "-o", prefix + ".canopy", "--"] + argv
    if key == "cpu-profile":
        return [canopy, "record", "-q", f"--cpu-profile={hz}", "-o", prefix + ".canopy", "--"] + argv
    if key == "perf":
        return ["perf", "record", "-q", "-F", "99", "-g", "-o", prefix + ".perf.data", "--"] + argv
    return argv


def recording_figures(path):
    """From a recording: the tree's own CPU (getrusage of what canopy waited for), the
    samples it holds, the profile's description, the samples the kernel lost, and the
    processes of the tree."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        samples = db.execute("SELECT count(*) FROM cpu_sample").fetchone()[0] if "cpu_sample" in tables else None
        processes = db.execute("SELECT count(*) FROM process").fetchone()[0]
    tree_s = (int(meta["tree_cpu_user_ns"]) + int(meta["tree_cpu_system_ns"])) / 1e9
    return tree_s, samples, meta.get("cpu_profile"), int(meta.get("cpu_samples_lost") or 0), processes


def run_recorded(launcher, canopy, key, argv, prefix, hz=99):
    """One run under canopy record (key "record") or --cpu-profile=hz; its wait4 figures,
    with the recording's in .figures. The recording is removed."""
    run = run_measured(launcher, wrap(key, canopy, argv, prefix, hz), prefix)
    if run.failure:
        fail(f"{' '.join(wrap(key, canopy, argv, prefix, hz))}: {run.failure}")
    (run.figures["tree_s"], run.figures["samples"], run.figures["meta"], run.figures["lost"],
     run.figures["processes"]) = recording_figures(prefix + ".canopy")
    run.figures["bytes"] = os.path.getsize(prefix + ".canopy")
    os.remove(prefix + ".canopy")
    return run


def median_interval(values, confidence):
    """The median of values and an interval that holds the true median with at least
    `confidence`, whatever the distribution (the runs need only be independent): from
    the k-th smallest to the k-th largest value, for the largest k at which the binomial
    chance (p = 1/2) of the median lying beyond either end stays within 1 - confidence.
    None when there are too few values for any k."""
    n, ordered = len(values), sorted(values)
    below = 0.0  # chance that fewer than k+1 of n values lie below the median
    k = 0
    while k < n // 2:
        below += math.comb(n, k) / 2 ** n
        if 2 * below > 1 - confidence:
            break
        k += 1
    return statistics.median(values), (ordered[k - 1], ordered[n - k]) if k else None


def interval_text(median, interval, unit, digits):
    text = f"{median:.{digits}f}{unit}"
    if interval:
        text += f" ({interval[0]:.{digits}f}{unit} to {interval[1]:.{digits}f}{unit})"
    return text


def spread(values, unit="", digits=2):
    """median (min–max), or the median alone when every run agrees."""
    low, mid, high = min(values), statistics.median(values), max(values)
    text = f"{mid:.{digits}f}{unit}"
    if f"{low:.{digits}f}" != f"{high:.{digits}f}":
        text += f" ({low:.{digits}f}{unit}–{high:.{digits}f}{unit})"
    return text


def measure_parts(launcher, canopy, spin, workload, rounds, tmp):
    """The loop and the storm, each under canopy record with and without the profile,
    interleaved round by round. Returns the runs by part and configuration."""
    parts = {
        "spin": ([spin, str(SPIN_ITERATIONS)], SPIN_HZ),
        "storm": ([workload, "churn", str(STORM_PROCESSES), "0"], 99),
    }
    runs = {(part, key): [] for part in parts for key in ("record", "cpu-profile")}
    for number in range(1, rounds + 1):
        for part, (argv, hz) in parts.items():
            for key in ("record", "cpu-profile"):
                progress(f"parts, round {number}/{rounds}: {part}, {key}")
                prefix = os.path.join(tmp, f"{part}.{key}.{number}")
                runs[(part, key)].append(run_recorded(launcher, canopy, key, argv, prefix, hz))
    return runs


def measure_clang(launcher, canopy, rounds, tmp):
    """The project built by clang, under canopy record with and without the profile,
    interleaved round by round. Returns the workload and its runs by configuration."""
    build = workloads.build(os.path.join(tmp, "clang-project"), compiler="clang")
    runs = {key: [] for key in ("record", "cpu-profile")}
    build.prepare()
    progress("one unmeasured build by clang (cold caches)")
    subprocess.run(build.argv, check=True, stdout=subprocess.DEVNULL)
    for number in range(1, rounds + 1):
        for key in runs:
            progress(f"by clang, round {number}/{rounds}: {key}")
            build.prepare()
            prefix = os.path.join(tmp, f"clang.{key}.{number}")
            runs[key].append(run_recorded(launcher, canopy, key, build.argv, prefix))
    return build, runs


def clang_section(build, runs):
    """The lines of the clang build's section."""
    tree_s = statistics.median(r.figures["tree_s"] for r in runs["record"])
    added = [100 * (a.cpu_s - a.figures["tree_s"] - (b.cpu_s - b.figures["tree_s"])) / tree_s
             for a, b in zip(runs["cpu-profile"], runs["record"])]
    lines = [
        "",
        f"**Built by clang.** {len(runs['record'])} rounds of {build.title.removeprefix('(c) build: ')}, under "
        "`canopy record` with and without the profile, interleaved. Debian's LLVM tools (clang, libLLVM) are "
        "linked by gold, which puts the table of their CFI (`.eh_frame_hdr`) after the CFI:",
        "",
        "| Configuration | CPU s, the tree's own | the recorder's | Samples |",
        "| --- | ---: | ---: | ---: |",
    ]
    for key, label in (("record", CONFIGS[1][1]), ("cpu-profile", CONFIGS[2][1])):
        rs = runs[key]
        samples = spread([r.figures["samples"] for r in rs], digits=0) if key == "cpu-profile" else ""
        lines.append(f"| {label} | {spread([r.figures['tree_s'] for r in rs])} | "
                     f"{spread([r.cpu_s - r.figures['tree_s'] for r in rs], digits=3)} | {samples} |")
    lines += ["", "The recorder's work the profile adds, per round, against the clang build's own CPU "
              f"({tree_s:.2f} s, median): {spread(added, '%')}."]
    return lines


def predict(parts, build_samples, build_processes, recorder_added_s, tree_alone_s):
    """The profiler's cost on the build, part by part, as shares of the build's own CPU:
    a list of (name, per-unit text, share median, share interval)."""
    def tree_added(part):
        return [a.figures["tree_s"] - b.figures["tree_s"]
                for a, b in zip(parts[(part, "cpu-profile")], parts[(part, "record")])]

    # Every sample the kernel took costs it, the ones it could not write too (lost: a full ring).
    def taken(run):
        return run.figures["samples"] + run.figures["lost"]

    per_sample_s = [added / taken(run) for added, run in zip(tree_added("spin"), parts[("spin", "cpu-profile")])]
    sample_s, sample_interval = median_interval(per_sample_s, PART_CONFIDENCE)
    # The storm's own samples are taken off at the loop's price, so that they are not
    # counted twice; what is left is the work of the inherited events per process.
    per_process_s = [(added - taken(run) * sample_s) / run.figures["processes"]
                     for added, run in zip(tree_added("storm"), parts[("storm", "cpu-profile")])]
    process_s, process_interval = median_interval(per_process_s, PART_CONFIDENCE)
    recorder_s, recorder_interval = median_interval(recorder_added_s, PART_CONFIDENCE)

    def share(seconds):
        return 100 * seconds / tree_alone_s

    def scaled(interval, count):
        return (share(interval[0] * count), share(interval[1] * count)) if interval else None

    return [
        ("the kernel's work per sample, in the sampled thread",
         f"{interval_text(sample_s * 1e6, sample_interval and tuple(v * 1e6 for v in sample_interval), ' µs', 1)}"
         f" a sample × {build_samples:.0f} samples",
         share(sample_s * build_samples), scaled(sample_interval, build_samples)),
        ("the inherited events' work at fork, exec and exit",
         f"{interval_text(process_s * 1e6, process_interval and tuple(v * 1e6 for v in process_interval), ' µs', 1)}"
         f" a process × {build_processes:.0f} processes",
         share(process_s * build_processes), scaled(process_interval, build_processes)),
        ("the recorder's own work (reading the rings, unwinding, writing)",
         "measured on the build itself", share(recorder_s), scaled(recorder_interval, 1)),
    ]


def main():
    if len(sys.argv) != 2:
        fail("usage: bench/cpu_profile.py BUILD_DIR")
    build_dir = os.path.abspath(sys.argv[1])
    canopy = os.path.join(build_dir, "canopy")
    launcher = os.path.join(build_dir, "bench", "canopy_bench_measured_run")
    for binary in (canopy, launcher):
        if not os.access(binary, os.X_OK):
            fail(f"missing {binary} (run: make bench-cpu)")
    spin = os.path.join(build_dir, "bench", "canopy_bench_spin")
    workload = os.path.join(build_dir, "tests", "canopy_workload")
    if not os.access(workload, os.X_OK):
        workload = os.path.join(build_dir, "bench", "canopy_bench_workload")  # BUILD_TESTING=OFF
    for binary in (spin, workload):
        if not os.access(binary, os.X_OK):
            fail(f"missing {binary} (run: make bench-cpu)")
    if not shutil.which("perf"):
        fail("perf not found (Debian package linux-perf; make deps installs it)")
    # 8: the fewest whose smallest and largest round hold the median at 98.3% (median_interval).
    rounds = int(os.environ.get("BENCH_CPU_RUNS", "8"))
    part_rounds = int(os.environ.get("BENCH_CPU_PART_RUNS", "15"))
    clang_rounds = int(os.environ.get("BENCH_CPU_CLANG_RUNS", "5"))

    with tempfile.TemporaryDirectory(prefix="canopy-cpu-bench.") as tmp:
        build = workloads.build(os.path.join(tmp, "project"))
        runs = {key: [] for key, _ in CONFIGS}
        started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        load_at_start = " ".join(load_average())
        cpu_at_start = machine_cpu_times()
        build.prepare()
        progress("one unmeasured build (cold caches)")
        subprocess.run(build.argv, check=True, stdout=subprocess.DEVNULL)
        for number in range(1, rounds + 1):
            for key, label in CONFIGS:
                progress(f"round {number}/{rounds}: {label}")
                build.prepare()
                prefix = os.path.join(tmp, f"{key}.{number}")
                if key in ("record", "cpu-profile"):
                    runs[key].append(run_recorded(launcher, canopy, key, build.argv, prefix))
                    continue
                run = run_measured(launcher, wrap(key, canopy, build.argv, prefix), prefix)
                if run.failure:
                    fail(f"{label}: {run.failure}")
                if key == "perf":
                    run.figures["bytes"] = os.path.getsize(prefix + ".perf.data")
                    os.remove(prefix + ".perf.data")
                runs[key].append(run)
        parts = measure_parts(launcher, canopy, spin, workload, part_rounds, tmp)
        clang = measure_clang(launcher, canopy, clang_rounds, tmp) if shutil.which("clang") else None
        cpu_at_end = machine_cpu_times()
        load_at_end = " ".join(load_average())

    def totals(key):
        return [r.cpu_s for r in runs[key]]

    # Paired by round, so that the drift of a shared machine falls on both sides alike.
    def paired(key, base):
        return [a.cpu_s - b.cpu_s for a, b in zip(runs[key], runs[base])]

    tree_alone = statistics.median(totals("unrecorded"))
    profile_cost = paired("cpu-profile", "record")
    perf_cost = paired("perf", "unrecorded")
    profile_share = [100 * c / tree_alone for c in profile_cost]
    perf_share = [100 * c / tree_alone for c in perf_cost]
    busy = [b - a for a, b in zip(cpu_at_start, cpu_at_end)]
    stolen = 100 * busy[7] / sum(busy) if sum(busy) else 0.0

    lines = [
        "# The CPU profiler's cost on a build, against perf record",
        "",
        "Written by `bench/cpu_profile.py` (`make bench-cpu`); never edited by hand. What each figure means: "
        "bench/README.md.",
        "",
    ] + describe_machine() + [
        f"- Date: {started}; load average at start: {load_at_start}; at the end: {load_at_end}",
        f"- CPU time stolen by the hypervisor during the run (/proc/stat steal): {stolen:.1f}%",
        f"- Profiles: {runs['cpu-profile'][0].figures['meta']}; perf: "
        + subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip(),
        f"- Workload: {build.title}",
        f"- {rounds} rounds, the four configurations interleaved in each; figures are medians, with "
        "(min–max) wherever the runs differ.",
        "",
        "| Configuration | Wall s | CPU s, tool and tree | the tree's own (canopy's meta) | the recorder's | "
        "Samples | Output MB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for key, label in CONFIGS:
        rs = runs[key]
        canopy_run = key in ("record", "cpu-profile")
        tree = spread([r.figures["tree_s"] for r in rs]) if canopy_run else ""
        recorder = spread([r.cpu_s - r.figures["tree_s"] for r in rs], digits=3) if canopy_run else ""
        samples = spread([r.figures["samples"] for r in rs], digits=0) if key == "cpu-profile" else ""
        if key == "cpu-profile" and any(r.figures["lost"] for r in rs):
            samples += f", {sum(r.figures['lost'] for r in rs)} lost in all"
        output = spread([r.figures["bytes"] / 1e6 for r in rs]) if "bytes" in rs[0].figures else ""
        lines.append(f"| {label} | {spread([r.wall_s for r in rs])} | {spread(totals(key))} | {tree} | "
                     f"{recorder} | {samples} | {output} |")
    recorder_added = [a.cpu_s - a.figures["tree_s"] - (b.cpu_s - b.figures["tree_s"])
                      for a, b in zip(runs["cpu-profile"], runs["record"])]
    direct, direct_interval = median_interval(profile_share, 0.95)
    lines += [
        "",
        "**Measured directly.** The profiler's cost, per round (CPU of `--cpu-profile` minus CPU of "
        f"`canopy record` without it), against the build's own CPU ({tree_alone:.2f} s, median): "
        + (f"{interval_text(direct, direct_interval, '%', 2)} (the rounds' median, and the interval that "
           "holds the true median at 95% or more)." if direct_interval else f"{spread(profile_share, '%')}."),
        f"perf record -F 99 -g's, per round (CPU under perf minus CPU of the build alone): "
        f"{spread(perf_share, '%')}.",
        "Both are differences of a few tenths of a second between runs of some ten seconds of CPU: on a "
        "shared machine a round's noise is of the same size, so they are read within one run of this bench.",
    ]

    def taken(run):
        return run.figures["samples"] + run.figures["lost"]

    build_samples = statistics.median(taken(r) for r in runs["cpu-profile"])
    build_processes = statistics.median(r.figures["processes"] for r in runs["cpu-profile"])
    lines += [
        "",
        f"**Taken apart.** {part_rounds} rounds of two workloads whose work is fixed, each under `canopy record` "
        "with and without the profile, interleaved:",
        "",
        "| Workload | Configuration | CPU s, the tree's own | Samples | Processes |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    part_labels = {
        "spin": f"canopy_bench_spin: {SPIN_ITERATIONS:,} rounds of a loop under 25 calls",
        "storm": f"canopy_workload churn {STORM_PROCESSES} 0: a fork, exec and exit each",
    }
    for part, label in part_labels.items():
        hz = SPIN_HZ if part == "spin" else 99
        for key in ("record", "cpu-profile"):
            rs = parts[(part, key)]
            samples = ""
            if key == "cpu-profile":
                samples = spread([r.figures["samples"] for r in rs], digits=0)
                if any(r.figures["lost"] for r in rs):
                    samples += f"; {sum(r.figures['lost'] for r in rs)} lost in all"
            config = f"--cpu-profile={hz}" if key == "cpu-profile" else "no profile"
            lines.append(f"| {label} | {config} | {spread([r.figures['tree_s'] for r in rs], digits=3)} | "
                         f"{samples} | {spread([r.figures['processes'] for r in rs], digits=0)} |")
    estimate = predict(parts, build_samples, build_processes, recorder_added, tree_alone)
    total = sum(share for _, _, share, _ in estimate)
    intervals = [interval for _, _, _, interval in estimate]
    total_interval = ((sum(i[0] for i in intervals), sum(i[1] for i in intervals))
                      if all(intervals) else None)
    lines += [
        "",
        f"The build at 99 Hz, from its recordings (medians): {build_samples:.0f} samples, "
        f"{build_processes:.0f} processes. Each part as a share of the build's own CPU, the median with the "
        f"interval that holds it at {100 * PART_CONFIDENCE:.1f}% or more:",
        "",
        "| Part | Per unit | Share of the build's CPU |",
        "| --- | --- | ---: |",
    ]
    for name, per_unit, share, interval in estimate:
        lines.append(f"| {name} | {per_unit} | {interval_text(share, interval, '%', 3)} |")
    lines.append(f"| **the profiler, predicted** | the sum | **{interval_text(total, total_interval, '%', 2)}** |")
    # The parts can only be trusted to bound the cost while the build itself does not say
    # it pays more: a direct interval wholly above the prediction's is something left out.
    left_out = bool(direct_interval and total_interval and direct_interval[0] > total_interval[1])
    if left_out:
        verdict = ("cannot be judged by this run: the direct measurement lies wholly above the prediction, "
                   "so the parts leave out something the build pays")
    elif total_interval and total_interval[1] <= TARGET_PERCENT:
        verdict = (f"met: the whole interval, which holds the cost at 95% or more, lies under the "
                   f"{TARGET_PERCENT:.0f}% target (issue 34)")
    elif total_interval and total_interval[0] > TARGET_PERCENT:
        verdict = f"not met: the whole interval lies over the {TARGET_PERCENT:.0f}% target (issue 34)"
    else:
        verdict = (f"cannot be judged by this run: the interval reaches across the {TARGET_PERCENT:.0f}% "
                   "target (issue 34)")
    if direct_interval:
        if total < direct_interval[0]:
            where = ("below it: the parts may leave out something the build pays" +
                     (" (the verdict says so)." if left_out else ", though their intervals still meet it."))
        elif total > direct_interval[1]:
            where = "above it: the parts overstate the build's cost, on the safe side."
        else:
            where = "within it."
        lines += ["", f"The prediction ({total:.2f}%) against the direct measurement's interval "
                  f"({direct_interval[0]:.2f}% to {direct_interval[1]:.2f}%): {where}"]
    lines += [
        "",
        f"**The target: {verdict}.** The prediction assumes that the profiler's cost is the sum of these "
        "parts: that the build's samples cost the kernel no more than the loop's (whose stack makes the "
        "kernel copy the whole 8 KiB and walk some 27 frames), at 99 Hz no more than at "
        f"{SPIN_HZ} Hz, and that a build's process costs its inherited events what a churn process does. "
        "What it leaves out (the cache a sample evicts from the build's own work) the direct "
        "measurement holds, within its noise.",
    ]
    lines += clang_section(*clang) if clang else ["", "**Built by clang:** not measured, clang was not found."]
    output = "\n".join(lines) + "\n"
    with open(RESULTS, "w") as results:
        results.write(output)
    print(output, end="")


if __name__ == "__main__":
    main()
