#!/usr/bin/env python3
"""make bench-live-trees: what each live update costs the recorder as the tree grows.
A shell that starts short processes in bursts (100 per burst, bursts 0.2 s apart) is
recorded by `canopy record --serve`, alone and with a client that follows it as the
page does: the /api/live stream and, after each update, the recording since the update
it has (GET /api/recording?since=), the whole series and an events page. The recorder's
CPU (every thread, from the recording's meta) watched minus alone, over the updates,
is the cost of one update. Each BUILD_DIR given is measured, interleaved with the
others, so that two builds of canopy compare in one run (LABEL=BUILD_DIR names one in
the table). Writes bench/live-trees-results.md.

    bench/live_tree_size.py [LABEL=]BUILD_DIR [[LABEL=]BUILD_DIR...]

Environment: BENCH_LIVE_TREE_RUNS (3 rounds), BENCH_LIVE_TREE_BURSTS ("10 100": the
two tree sizes, in bursts of 100 processes)."""

import json
import os
import statistics
import sys
import tempfile
import urllib.request
from datetime import datetime, timezone

from heap import describe_machine, fail, load_average, progress
from live import recorder_cpu_s, start_serving, stop_when_complete, write_results

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(REPO, "bench", "live-trees-results.md")
BURST = 100


def tree_argv(bursts):
    return ["sh", "-c", f"for i in $(seq {bursts}); do for j in $(seq {BURST}); do /bin/true; done; sleep 0.2; done"]


def get(url):
    with urllib.request.urlopen(url, timeout=120) as answer:
        return answer.read()


def follow(url):
    """Follows the recording as the page does, until it ends: how many updates, and
    how many processes the last one had."""
    updates, processes, update = 0, 0, None
    with urllib.request.urlopen(url + "api/live", timeout=120) as stream:
        for line in stream:
            line = line.decode()
            if not line.startswith("data:"):
                continue
            event = json.loads(line[5:])
            updates += 1
            processes = event["processes"]
            # A canopy from before ?since= answers it with the whole recording.
            recording = json.loads(get(url + "api/recording" + ("" if update is None else f"?since={update}")))
            update = recording.get("update")
            start = recording["meta"]["start_ms"]
            get(url + f"api/series?metric=rss&from={start}&to={event['last_tick_ms'] or start}&points=843")
            get(url + "api/events?offset=0&limit=60&kinds=exec")
            if not event["following"]:
                break
    return updates, processes


def run(canopy, bursts, watched, path):
    recorder, url = start_serving([canopy, "record", "-q", "--serve=127.0.0.1:0", "-o", path, "--"] + tree_argv(bursts))
    updates, processes = follow(url) if watched else (0, 0)
    stop_when_complete(recorder)
    return recorder_cpu_s(path), updates, processes


def main():
    labels = [arg.split("=", 1)[0] if "=" in arg else arg for arg in sys.argv[1:]]
    builds = [os.path.abspath(arg.split("=", 1)[-1]) for arg in sys.argv[1:]]
    if not builds:
        fail("usage: bench/live_tree_size.py [LABEL=]BUILD_DIR [[LABEL=]BUILD_DIR...]")
    for build in builds:
        if not os.access(os.path.join(build, "canopy"), os.X_OK):
            fail(f"missing {build}/canopy (run: make bench-live-trees)")
    rounds = int(os.environ.get("BENCH_LIVE_TREE_RUNS", "3"))
    sizes = [int(b) for b in os.environ.get("BENCH_LIVE_TREE_BURSTS", "10 100").split()]
    started = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    load_at_start = " ".join(load_average())
    runs = {}
    with tempfile.TemporaryDirectory(prefix="canopy-bench-live-trees-") as tmp:
        for round_ in range(rounds):
            for bursts in sizes:
                for b, build in enumerate(builds):
                    for watched in (False, True):
                        progress(f"round {round_ + 1}/{rounds}: {bursts * BURST} processes, build {b + 1}, "
                                 f"{'watched' if watched else 'alone'}")
                        path = os.path.join(tmp, f"r{round_}-{bursts}-{b}-{int(watched)}.canopy")
                        runs.setdefault((bursts, b, watched), []).append(
                            run(os.path.join(build, "canopy"), bursts, watched, path))
    rows = []
    for bursts in sizes:
        for b, label in enumerate(labels):
            alone = statistics.median(cpu for cpu, _, _ in runs[(bursts, b, False)])
            watched = statistics.median(cpu for cpu, _, _ in runs[(bursts, b, True)])
            updates = statistics.median(u for _, u, _ in runs[(bursts, b, True)])
            processes = max(p for _, _, p in runs[(bursts, b, True)])
            rows.append(f"| {processes} | {label} | {alone * 1000:.0f} | {watched * 1000:.0f} | {updates:.0f} | "
                        f"{(watched - alone) * 1000 / updates:.2f} |")
    lines = [
        "# What a live update costs the recorder as the tree grows (make bench-live-trees)",
        "",
        f"Generated by bench/live_tree_size.py, started {started} (load average {load_at_start}),",
        f"{rounds} rounds, interleaved. A shell starts {BURST} short processes per burst, bursts 0.2 s",
        "apart, under `canopy record --serve`: alone, and followed as the page follows it (the",
        "/api/live stream; after each update the recording since the last, the series and an",
        "events page). The recorder's CPU is its own (every thread), from the recording's meta;",
        "medians.",
        "",
        *describe_machine(),
        "",
        "| processes | build | alone, ms | watched, ms | updates | ms per update |",
        "| --- | --- | --- | --- | --- | --- |",
        *rows,
    ]
    write_results(RESULTS, lines)


if __name__ == "__main__":
    main()
